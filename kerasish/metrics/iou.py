"""Intersection-over-union metrics (IoU, MeanIoU, the one-hot forms, BinaryIoU), from a
streamed confusion matrix.

The state is a (num_classes, num_classes) matrix of weighted counts, rows
the true class and columns the predicted class, accumulated with one matrix
product of one-hot encodings per batch. The IoU of class c is
``cm[c, c] / (row_c + column_c - cm[c, c])``; the metric is the mean over the
target classes that occur at all (in labels or predictions), as in Keras.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import backend, settings
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops, indexing_ops, math_ops, reduction_ops, shape_ops
from kerasish.core.ops.math_ops import divide_no_nan
from kerasish.core.tensor import Tensor
from kerasish.metrics.base import Metric, as_pair, as_tensor


class _IoUBase(Metric):
    """Confusion-matrix state, its update from class ids, and the mean IoU of target classes."""

    def _init_iou(self, num_classes: int, target_class_ids, ignore_class) -> None:
        what = self._describe()
        self.num_classes = int(num_classes)
        if self.num_classes < 1:
            raise InvalidArgumentError(f"{what}: num_classes must be >= 1, got {num_classes}")
        self.target_class_ids = [int(c) for c in target_class_ids]
        bad = [c for c in self.target_class_ids if not 0 <= c < self.num_classes]
        if bad or not self.target_class_ids:
            raise InvalidArgumentError(
                f"{what}: target_class_ids must be non-empty ids in [0, {self.num_classes}), "
                f"got {list(target_class_ids)}"
            )
        self.ignore_class = None if ignore_class is None else int(ignore_class)
        self.total_cm = self.add_weight(
            "total_confusion_matrix", (self.num_classes, self.num_classes)
        )

    def _class_ids(self, ids: Tensor, role: str, allow_ignored: bool) -> Tensor:
        """Integer class ids, checked to lie in [0, num_classes) (or to be ignore_class)."""
        what = self._describe()
        host = np.asarray(backend.to_numpy(ids._value)).reshape(-1)
        if host.dtype.kind == "f" and not np.all(np.isfinite(host) & (host == np.floor(host))):
            index = int(np.argmax(~(np.isfinite(host) & (host == np.floor(host)))))
            raise InvalidArgumentError(
                f"{what}: {role} must hold class ids, got the non-integral value "
                f"{host[index].item()!r} at flat index {index}"
            )
        bad = (host < 0) | (host >= self.num_classes)
        if allow_ignored and self.ignore_class is not None:
            bad &= host != self.ignore_class
        if bad.any():
            index = int(np.argmax(bad))
            raise InvalidArgumentError(
                f"{what}: {role} holds {host[index].item()!r} at flat index {index}, which is "
                f"not a class id in [0, {self.num_classes})"
                + ("" if self.ignore_class is None else f" nor ignore_class={self.ignore_class}")
            )
        return math_ops.cast(shape_ops.reshape(ids, (-1,)), np.int64)

    def _accumulate(self, y_true: Tensor, y_pred: Tensor, sample_weight) -> None:
        """Add the weighted confusion counts of flat class ids y_true against y_pred."""
        what = self._describe()
        if y_true.size != y_pred.size:
            raise InvalidArgumentError(
                f"{what}: y_true (shape {y_true.shape}) and y_pred (shape {y_pred.shape}) "
                "must hold one class id each per position"
            )
        self._follow_device(y_pred._value)
        truth = self._class_ids(y_true, "y_true", allow_ignored=True)
        predicted = self._class_ids(y_pred, "y_pred", allow_ignored=False)
        weight = creation_ops.ones(truth.shape, self._dtype)
        if sample_weight is not None:
            given = math_ops.cast(as_tensor(sample_weight, like=y_pred), self._dtype)
            if given.size not in (1, truth.size):
                raise InvalidArgumentError(
                    f"{what}: sample_weight has shape {given.shape} but there are {truth.size} "
                    "labels; give one weight per label (or a scalar)"
                )
            weight = weight * shape_ops.reshape(given, (-1,) if given.size > 1 else ())
        if self.ignore_class is not None:
            keep = math_ops.not_equal(truth, self.ignore_class)
            weight = math_ops.where(keep, weight, creation_ops.zeros_like(weight))
            truth = math_ops.where(keep, truth, creation_ops.zeros_like(truth))
        rows = indexing_ops.one_hot(truth, self.num_classes, dtype=self._dtype)
        columns = indexing_ops.one_hot(predicted, self.num_classes, dtype=self._dtype)
        self.total_cm.assign_add(
            math_ops.matmul(rows * shape_ops.reshape(weight, (-1, 1)), columns, transpose_a=True)
        )

    def result(self) -> Tensor:
        cm = self.total_cm.read_value()
        true_positives = indexing_ops.gather(
            shape_ops.reshape(cm, (-1,)),
            [c * (self.num_classes + 1) for c in self.target_class_ids],
        )
        union = (
            indexing_ops.gather(reduction_ops.reduce_sum(cm, 0), self.target_class_ids)
            + indexing_ops.gather(reduction_ops.reduce_sum(cm, 1), self.target_class_ids)
            - true_positives
        )
        present = math_ops.greater(union, 1e-9)
        iou = math_ops.where(
            present, true_positives / (union + settings.epsilon()), creation_ops.zeros_like(union)
        )
        count = reduction_ops.reduce_sum(math_ops.cast(present, self._dtype))
        return divide_no_nan(reduction_ops.reduce_sum(iou), count)


class IoU(_IoUBase):
    """The intersection-over-union of the classes `target_class_ids`, averaged.

    Args:
        num_classes: the number of classes C (the state is a C x C matrix).
        target_class_ids: the classes whose IoU is averaged.
        name, dtype: as for every metric.
        ignore_class: a label value (e.g. -1 or 255 for "void" pixels) whose
            positions are left out.
        sparse_y_true: labels are class ids; False: scores over `axis` (argmax).
        sparse_y_pred: predictions are class ids; False: scores over `axis`.
        axis: the class axis of non-sparse inputs.

    Raises:
        InvalidArgumentError: for a class id outside [0, C) (Keras drops these
            silently), naming the value and its position.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.IoU(num_classes=2, target_class_ids=[0])
        >>> round(float(m([0, 0, 1, 1], [0, 1, 0, 1])), 4)  # class 0: 1 / (2 + 2 - 1)
        0.3333
    """

    _default_name = "io_u"

    def __init__(
        self,
        num_classes: int,
        target_class_ids,
        name: str | None = None,
        dtype=None,
        ignore_class: int | None = None,
        sparse_y_true: bool = True,
        sparse_y_pred: bool = True,
        axis: int = -1,
    ):
        super().__init__(name=name, dtype=dtype)
        self._init_iou(num_classes, target_class_ids, ignore_class)
        self.sparse_y_true = bool(sparse_y_true)
        self.sparse_y_pred = bool(sparse_y_pred)
        self.axis = int(axis)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        y_true, y_pred = as_pair(y_true, y_pred)
        if not self.sparse_y_true:
            y_true = reduction_ops.argmax(y_true, self.axis)
        if not self.sparse_y_pred:
            y_pred = reduction_ops.argmax(y_pred, self.axis)
        self._accumulate(y_true, y_pred, sample_weight)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "num_classes": self.num_classes,
            "target_class_ids": list(self.target_class_ids),
            "ignore_class": self.ignore_class,
            "sparse_y_true": self.sparse_y_true,
            "sparse_y_pred": self.sparse_y_pred,
            "axis": self.axis,
        }


class MeanIoU(IoU):
    """The mean intersection-over-union of all classes, for segmentation and classification.

    Args:
        num_classes: the number of classes C (the state is a C x C matrix).
        name, dtype: as for every metric.
        ignore_class: a label value (e.g. -1 or 255 for "void" pixels) whose
            positions are left out.
        sparse_y_true: labels are class ids; False: scores over `axis` (argmax).
        sparse_y_pred: predictions are class ids; False: scores over `axis`.
        axis: the class axis of non-sparse inputs.

    Raises:
        InvalidArgumentError: for a class id outside [0, C) (Keras drops these
            silently), naming the value and its position.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.MeanIoU(num_classes=2)
        >>> round(float(m([0, 0, 1, 1], [0, 1, 0, 1])), 4)
        0.3333
    """

    _default_name = "mean_io_u"

    def __init__(
        self,
        num_classes: int,
        name: str | None = None,
        dtype=None,
        ignore_class: int | None = None,
        sparse_y_true: bool = True,
        sparse_y_pred: bool = True,
        axis: int = -1,
    ):
        super().__init__(
            num_classes, range(int(num_classes)), name, dtype, ignore_class, sparse_y_true,
            sparse_y_pred, axis,
        )

    def get_config(self) -> dict:
        config = super().get_config()
        del config["target_class_ids"]
        return config


class OneHotIoU(IoU):
    """`IoU` for one-hot labels (argmax over `axis`), averaged over `target_class_ids`.

    Args:
        num_classes: the number of classes C.
        target_class_ids: the classes whose IoU is averaged.
        name, dtype: as for every metric.
        ignore_class: a class id whose positions are left out.
        sparse_y_pred: predictions are class ids; False (default): scores over `axis`.
        axis: the class axis.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.OneHotIoU(num_classes=2, target_class_ids=[1])
        >>> round(float(m([[1, 0], [0, 1], [0, 1]], [[0.6, 0.4], [0.3, 0.7], [0.8, 0.2]])), 4)
        0.5
    """

    _default_name = "one_hot_io_u"

    def __init__(
        self,
        num_classes: int,
        target_class_ids,
        name: str | None = None,
        dtype=None,
        ignore_class: int | None = None,
        sparse_y_pred: bool = False,
        axis: int = -1,
    ):
        super().__init__(
            num_classes, target_class_ids, name, dtype, ignore_class, False, sparse_y_pred, axis
        )

    def get_config(self) -> dict:
        config = super().get_config()
        del config["sparse_y_true"]
        return config


class OneHotMeanIoU(MeanIoU):
    """`MeanIoU` for one-hot labels (argmax over `axis`).

    Args:
        num_classes: the number of classes C.
        name, dtype: as for every metric.
        ignore_class: a class id whose positions are left out.
        sparse_y_pred: predictions are class ids; False (default): scores over `axis`.
        axis: the class axis.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.OneHotMeanIoU(num_classes=2)
        >>> round(float(m([[1, 0], [0, 1], [0, 1]], [[0.6, 0.4], [0.3, 0.7], [0.8, 0.2]])), 4)
        0.5
    """

    _default_name = "one_hot_mean_io_u"

    def __init__(
        self,
        num_classes: int,
        name: str | None = None,
        dtype=None,
        ignore_class: int | None = None,
        sparse_y_pred: bool = False,
        axis: int = -1,
    ):
        super().__init__(num_classes, name, dtype, ignore_class, False, sparse_y_pred, axis)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["sparse_y_true"]
        return config


class BinaryIoU(_IoUBase):
    """IoU of binary predictions thresholded at `threshold`, averaged over `target_class_ids`.

    A prediction >= `threshold` is class 1, otherwise class 0; labels are 0/1.

    Args:
        target_class_ids: the classes to average: (0, 1) (default), [0] or [1].
        threshold: the decision threshold on the predictions (default 0.5).
        name, dtype: as for every metric.

    Example:
        >>> import kerasish as ks
        >>> m = ks.metrics.BinaryIoU(target_class_ids=[0, 1], threshold=0.3)
        >>> round(float(m([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7])), 4)
        0.3333
    """

    _default_name = "binary_io_u"

    def __init__(
        self, target_class_ids=(0, 1), threshold: float = 0.5, name: str | None = None, dtype=None
    ):
        super().__init__(name=name, dtype=dtype)
        self._init_iou(2, target_class_ids, None)
        self.threshold = float(threshold)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        y_true, y_pred = as_pair(y_true, y_pred)
        predicted = math_ops.cast(math_ops.greater_equal(y_pred, self.threshold), np.int64)
        self._accumulate(y_true, predicted, sample_weight)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "target_class_ids": list(self.target_class_ids),
            "threshold": self.threshold,
        }
