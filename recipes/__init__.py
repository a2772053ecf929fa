"""Training recipes, run as `kerasish <name>` or, from the repository, `python -m recipes.<name>`.

Installed, this folder is the package `kerasish.recipes` (`kerasish/recipes` is a link to
it), so nothing with the generic name `recipes` lands in site-packages. The recipes import
each other relatively, so they work under either name.
"""

NAMES = ("linear_regression", "huber_regression", "mnist", "word2vec")
