"""`ks.layers`: the Layer base class and the built-in layers."""

from kerasish.layers.attention import AdditiveAttention, Attention, MultiHeadAttention  # noqa: F401
from kerasish.layers.base import Layer, clear_session  # noqa: F401
from kerasish.layers.convolutional import (  # noqa: F401
    AveragePooling2D,
    AvgPool2D,
    Conv2D,
    MaxPool2D,
    MaxPooling2D,
)
from kerasish.layers.core import Activation, Dense, Dropout, Embedding, Flatten, Reshape  # noqa: F401
from kerasish.layers.masking import Masking  # noqa: F401
from kerasish.layers.normalization import (  # noqa: F401
    BatchNormalization,
    GroupNormalization,
    LayerNormalization,
    UnitNormalization,
)
from kerasish.layers.recurrent import (  # noqa: F401
    GRU,
    LSTM,
    RNN,
    Bidirectional,
    GRUCell,
    LSTMCell,
    SimpleRNN,
    SimpleRNNCell,
    TimeDistributed,
)
