"""Model (subclassable, trainable with fit), Sequential, and functional models."""

from kerasish.models.functional import Functional  # noqa: F401
from kerasish.models.model import Model  # noqa: F401
from kerasish.models.sequential import Sequential  # noqa: F401
from kerasish.models.symbolic import PrimitiveOp  # noqa: F401
