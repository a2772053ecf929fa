"""`ks.datasets`: MNIST, Fashion-MNIST and the text8 corpus, found locally or downloaded.

`mnist.load_data()` and `fashion_mnist.load_data()` return
``(x_train, y_train), (x_test, y_test)`` uint8 arrays like Keras;
`text8.load_data()` the list of words. Every loader looks in an explicit
`path`, then ``$KERASISH_DATA/<name>``, then ``~/.kerasish/datasets/<name>``
(and Debian's package for Fashion-MNIST), and only then downloads, with
size and checksum checks. `text` holds the corpus reader and vocabulary tools.
"""

from kerasish.datasets import fashion_mnist, idx, mnist, text, text8  # noqa: F401
from kerasish.datasets._files import (  # noqa: F401
    CorruptFileError,
    DatasetNotFoundError,
    DownloadError,
)
from kerasish.datasets.idx import read_idx, write_idx  # noqa: F401
