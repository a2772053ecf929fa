"""Model (subclassable, trainable with fit), Sequential, and functional models."""

from kerasish.core.symbolic import FunctionOp, PrimitiveOp  # noqa: F401
from kerasish.models.cloning import clone_model  # noqa: F401
from kerasish.models.functional import Functional  # noqa: F401
from kerasish.models.model import Model  # noqa: F401
from kerasish.models.sequential import Sequential  # noqa: F401
from kerasish.saving.keras_file import load_model, model_from_json, save_model  # noqa: F401
