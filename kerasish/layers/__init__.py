"""`ks.layers`: the Layer base class and the built-in layers."""

from kerasish.layers.activation import ELU, LeakyReLU, PReLU, ReLU, Softmax  # noqa: F401
from kerasish.layers.attention import AdditiveAttention, Attention, MultiHeadAttention  # noqa: F401
from kerasish.layers.base import Layer  # noqa: F401
from kerasish.layers.convolutional import (  # noqa: F401
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    Convolution1D,
    Convolution2D,
    Convolution2DTranspose,
    DepthwiseConv2D,
    SeparableConv2D,
    SeparableConvolution2D,
)
from kerasish.layers.core import (  # noqa: F401
    Activation,
    Dense,
    Dropout,
    Embedding,
    Flatten,
    Identity,
    Lambda,
    Reshape,
)
from kerasish.layers.input_layer import Input, InputLayer  # noqa: F401
from kerasish.layers.input_spec import InputSpec  # noqa: F401
from kerasish.layers.masking import Masking  # noqa: F401
from kerasish.layers.merging import (  # noqa: F401
    Add,
    Average,
    Concatenate,
    Dot,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    dot,
    maximum,
    minimum,
    multiply,
    subtract,
)
from kerasish.layers.normalization import (  # noqa: F401
    BatchNormalization,
    GroupNormalization,
    LayerNormalization,
    UnitNormalization,
)
from kerasish.layers.pooling import (  # noqa: F401
    AveragePooling1D,
    AveragePooling2D,
    AvgPool1D,
    AvgPool2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAvgPool1D,
    GlobalAvgPool2D,
    GlobalMaxPool1D,
    GlobalMaxPool2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPool1D,
    MaxPool2D,
    MaxPooling1D,
    MaxPooling2D,
)
from kerasish.layers.preprocessing import (  # noqa: F401
    AutoContrast,
    CenterCrop,
    CutMix,
    Equalization,
    IntegerLookup,
    MaxNumBoundingBoxes,
    MixUp,
    Normalization,
    Pipeline,
    RandomBrightness,
    RandomColorDegeneration,
    RandomColorJitter,
    RandomContrast,
    RandomCrop,
    RandomElasticTransform,
    RandomErasing,
    RandomFlip,
    RandomGaussianBlur,
    RandomGrayscale,
    RandomHue,
    RandomInvert,
    RandomPerspective,
    RandomPosterization,
    RandomRotation,
    RandomSaturation,
    RandomSharpness,
    RandomShear,
    RandomTranslation,
    RandomZoom,
    Rescaling,
    Resizing,
    Solarization,
    StringLookup,
    TextVectorization,
)
from kerasish.layers.recurrent import (  # noqa: F401
    GRU,
    LSTM,
    RNN,
    Bidirectional,
    SimpleRNN,
    TimeDistributed,
)
from kerasish.layers.recurrent_cells import (  # noqa: F401
    GRUCell,
    LSTMCell,
    SimpleRNNCell,
    StackedRNNCells,
)
from kerasish.layers.regularization import (  # noqa: F401
    ActivityRegularization,
    GaussianDropout,
    GaussianNoise,
    SpatialDropout1D,
    SpatialDropout2D,
)
from kerasish.layers.reshaping import (  # noqa: F401
    Cropping1D,
    Cropping2D,
    Permute,
    RepeatVector,
    UpSampling1D,
    UpSampling2D,
    ZeroPadding1D,
    ZeroPadding2D,
)
