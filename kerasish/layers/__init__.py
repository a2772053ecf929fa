"""`ks.layers`: the Layer base class and the built-in layers."""

from kerasish.layers.activation import ELU, LeakyReLU, PReLU, ReLU, Softmax  # noqa: F401
from kerasish.layers.attention import AdditiveAttention, Attention, MultiHeadAttention  # noqa: F401
from kerasish.layers.backend_tied import (  # noqa: F401
    FlaxLayer,
    JaxLayer,
    TFSMLayer,
    TorchModuleWrapper,
)
from kerasish.layers.base import Layer  # noqa: F401
from kerasish.layers.conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D  # noqa: F401
from kerasish.layers.convolutional import (  # noqa: F401
    Conv1D,
    Conv1DTranspose,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    Conv3DTranspose,
    Convolution1D,
    Convolution1DTranspose,
    Convolution2D,
    Convolution2DTranspose,
    Convolution3D,
    Convolution3DTranspose,
    DepthwiseConv1D,
    DepthwiseConv2D,
    SeparableConv1D,
    SeparableConv2D,
    SeparableConvolution1D,
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
from kerasish.layers.einsum_dense import EinsumDense  # noqa: F401
from kerasish.layers.grouped_query_attention import GroupQueryAttention  # noqa: F401
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
    RMSNormalization,
    SpectralNormalization,
    UnitNormalization,
)
from kerasish.layers.pooling import (  # noqa: F401
    AdaptiveAveragePooling1D,
    AdaptiveAveragePooling2D,
    AdaptiveAveragePooling3D,
    AdaptiveMaxPooling1D,
    AdaptiveMaxPooling2D,
    AdaptiveMaxPooling3D,
    AveragePooling1D,
    AveragePooling2D,
    AveragePooling3D,
    AvgPool1D,
    AvgPool2D,
    AvgPool3D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAveragePooling3D,
    GlobalAvgPool1D,
    GlobalAvgPool2D,
    GlobalAvgPool3D,
    GlobalMaxPool1D,
    GlobalMaxPool2D,
    GlobalMaxPool3D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    GlobalMaxPooling3D,
    MaxPool1D,
    MaxPool2D,
    MaxPool3D,
    MaxPooling1D,
    MaxPooling2D,
    MaxPooling3D,
)
from kerasish.layers.preprocessing import (  # noqa: F401
    AugMix,
    AutoContrast,
    CategoryEncoding,
    CenterCrop,
    ContrastLimitedAdaptiveHistogramEqualization,
    CutMix,
    Discretization,
    Equalization,
    HashedCrossing,
    Hashing,
    IntegerLookup,
    MaxNumBoundingBoxes,
    MixUp,
    Normalization,
    Pipeline,
    RandAugment,
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
    AlphaDropout,
    GaussianDropout,
    GaussianNoise,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
)
from kerasish.layers.reshaping import (  # noqa: F401
    Cropping1D,
    Cropping2D,
    Cropping3D,
    Permute,
    RepeatVector,
    UpSampling1D,
    UpSampling2D,
    UpSampling3D,
    ZeroPadding1D,
    ZeroPadding2D,
    ZeroPadding3D,
)
from kerasish.layers.reversible_embedding import ReversibleEmbedding  # noqa: F401
from kerasish.layers.serialization import deserialize, serialize  # noqa: F401
from kerasish.layers.spectrogram import MelSpectrogram, STFTSpectrogram  # noqa: F401
from kerasish.layers.wrapper import Wrapper  # noqa: F401
