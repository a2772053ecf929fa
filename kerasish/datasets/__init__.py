"""`ks.datasets`: MNIST, Fashion-MNIST, CIFAR-10, IMDB, Boston housing and the text8
corpus, found locally or downloaded.

`mnist.load_data()`, `fashion_mnist.load_data()` and `cifar10.load_data()` return
``(x_train, y_train), (x_test, y_test)`` uint8 arrays like Keras;
`imdb.load_data()` reviews as lists of word ids (Keras's index offsets);
`boston_housing.load_data()` a regression set; `text8.load_data()` the list of
words. Every loader looks in an explicit `path`, then ``$KERASISH_DATA/<name>``,
then ``~/.kerasish/datasets/<name>`` (and Debian's package for Fashion-MNIST),
and only then downloads, with size and checksum checks; offline, its error lists
every place looked and which file to put where. Pickled data (CIFAR-10's batches,
IMDB's object arrays) is read without running code from the file. `text` holds
the corpus reader and vocabulary tools.
"""

from kerasish.datasets import (  # noqa: F401
    boston_housing,
    cifar10,
    fashion_mnist,
    idx,
    imdb,
    mnist,
    text,
    text8,
)
from kerasish.datasets._files import (  # noqa: F401
    CorruptFileError,
    DatasetNotFoundError,
    DownloadError,
)
from kerasish.datasets.idx import read_idx, write_idx  # noqa: F401
