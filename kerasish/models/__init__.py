"""Model (subclassable, trainable with fit) and Sequential."""

from kerasish.models.model import Model  # noqa: F401
from kerasish.models.sequential import Sequential  # noqa: F401
