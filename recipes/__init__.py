"""Training recipes, run as `python -m recipes.<name>` or `kerasish <name>`."""

NAMES = ("linear_regression", "huber_regression", "mnist", "word2vec")
