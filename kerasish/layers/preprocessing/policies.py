"""Augmentation policies made of the other augmentation layers: RandAugment (Cubuk et al.,
2019) and AugMix (Hendrycks et al., 2020), with Keras 3's arguments, defaults, operation
lists and config.

Each policy holds its operations as sublayers built from its own `factor`, `value_range`,
`interpolation` and `seed`, exactly as Keras builds them, and runs them on channels-last
images (the base class moves 'channels_first' images). The random draws come from
kerasish's generators, so single outputs differ from Keras's; which operations exist,
their strengths and the mixing rules are Keras's.
"""

from __future__ import annotations

import numpy as np

from kerasish.core import random as ks_random
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import clip_ops, math_ops
from kerasish.layers.preprocessing.augmentation import (
    BaseImagePreprocessingLayer,
    RandomRotation,
    RandomShear,
    RandomTranslation,
)
from kerasish.layers.preprocessing.color import (
    AutoContrast,
    Equalization,
    RandomBrightness,
    RandomColorDegeneration,
    RandomContrast,
    RandomPosterization,
    RandomSharpness,
    Solarization,
)


def _operations(layer, names) -> None:
    """Make the named operation sublayers of a policy (Keras's arguments for each)."""
    factor, value_range, seed = layer.factor, layer.value_range, layer.seed
    interpolation = layer.interpolation
    makers = {
        "random_shear": lambda: RandomShear(x_factor=factor, y_factor=factor,
                                            interpolation=interpolation, seed=seed),
        "random_translation": lambda: RandomTranslation(
            height_factor=factor, width_factor=factor, interpolation=interpolation, seed=seed),
        "random_rotation": lambda: RandomRotation(factor=factor, interpolation=interpolation,
                                                  seed=seed),
        "random_brightness": lambda: RandomBrightness(factor=factor, value_range=value_range,
                                                      seed=seed),
        "random_color_degeneration": lambda: RandomColorDegeneration(
            factor=factor, value_range=value_range, seed=seed),
        "random_contrast": lambda: RandomContrast(factor=factor, value_range=value_range,
                                                  seed=seed),
        "random_sharpness": lambda: RandomSharpness(factor=factor, value_range=value_range,
                                                    seed=seed),
        "random_posterization": lambda: RandomPosterization(
            factor=max(1, int(8 * factor[1])), value_range=value_range, seed=seed),
        "solarization": lambda: Solarization(addition_factor=factor, threshold_factor=factor,
                                             value_range=value_range, seed=seed),
        "auto_contrast": lambda: AutoContrast(value_range=value_range),
        "equalization": lambda: Equalization(value_range=value_range),
    }
    for name in names:
        setattr(layer, name, makers[name]())


def _check_value_range(kind: str, value_range) -> tuple:
    if (not isinstance(value_range, (tuple, list)) or len(value_range) != 2
            or value_range[0] >= value_range[1]):
        raise InvalidArgumentError(
            f"{kind}: value_range must be two numbers (low, high) with low < high, got "
            f"{value_range!r}")
    return tuple(value_range)


class RandAugment(BaseImagePreprocessingLayer):
    """Apply `num_ops` operations drawn uniformly (with repetition) from Keras's eleven:
    shear, translation, rotation, brightness, color degeneration, contrast, sharpness,
    posterization, solarization, auto contrast and equalization, all of strength `factor`.

    One draw of operations per call (the whole batch gets the same operations, each with
    its own random strength per image), as Keras.

    Args:
        value_range: the images' (low, high) range (default (0, 255)).
        num_ops: how many operations are applied.
        factor: the operations' strength, a number in [0, 1] or a (low, high) pair.
        interpolation: the geometric operations' interpolation ('bilinear' or 'nearest').
        seed: the random seed.
        data_format: 'channels_last' (default) or 'channels_first'.
        **kwargs: the `Layer` arguments.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.RandAugment(num_ops=2, seed=1)(ks.ones([2, 8, 8, 3]) * 100).shape
        (2, 8, 8, 3)
    """

    _FACTOR_BOUNDS = (0, 1)
    _AUGMENT_LAYERS = ("random_shear", "random_translation", "random_rotation",
                       "random_brightness", "random_color_degeneration", "random_contrast",
                       "random_sharpness", "random_posterization", "solarization",
                       "auto_contrast", "equalization")

    def __init__(self, value_range=(0, 255), num_ops=2, factor=0.5, interpolation="bilinear",
                 seed=None, data_format=None, **kwargs):
        super().__init__(factor=factor, data_format=data_format, **kwargs)
        self.value_range = _check_value_range("RandAugment", value_range)
        if not isinstance(num_ops, (int, np.integer)) or num_ops < 0:
            raise InvalidArgumentError(
                f"RandAugment: num_ops must be a non-negative integer, got {num_ops!r}")
        self.num_ops = int(num_ops)
        self.interpolation = interpolation
        self.seed = seed
        _operations(self, self._AUGMENT_LAYERS)

    def augment(self, images, batch: int):
        picks = ks_random.randint((self.num_ops,), 0, len(self._AUGMENT_LAYERS),
                                  seed=self.seed).numpy()
        for pick in picks:
            images = getattr(self, self._AUGMENT_LAYERS[int(pick)]).augment(images, batch)
        return images

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range,
                "num_ops": self.num_ops, "interpolation": self.interpolation,
                "seed": self.seed}


class AugMix(BaseImagePreprocessingLayer):
    """Mix the image with `num_chains` augmented copies (Hendrycks et al., 2020): each chain
    applies up to `chain_depth` operations (each step: one drawn from the list, or none);
    the chains are mixed with Dirichlet(alpha) weights and the mix blended with the
    original by a Beta(alpha, alpha) weight, then clipped to `value_range`, as Keras.

    Args:
        value_range: the images' (low, high) range (default (0, 255)).
        num_chains: how many augmentation chains are mixed.
        chain_depth: the most operations in a chain.
        factor: the operations' strength, a number in [0, 1] or a (low, high) pair.
        alpha: the Dirichlet and Beta concentration.
        all_ops: use all eleven operations (True), or only the seven that do not
            overlap ImageNet-C's corruptions (no brightness, color, contrast, sharpness).
        interpolation: the geometric operations' interpolation.
        seed: the random seed.
        data_format: 'channels_last' (default) or 'channels_first'.
        **kwargs: the `Layer` arguments.

    Example:
        >>> import kerasish as ks
        >>> ks.layers.AugMix(seed=1)(ks.ones([2, 8, 8, 3]) * 100).shape
        (2, 8, 8, 3)
    """

    _FACTOR_BOUNDS = (0, 1)
    _SOME_OPS = ("random_shear", "random_translation", "random_rotation",
                 "random_posterization", "solarization", "auto_contrast", "equalization")
    _ALL_OPS = _SOME_OPS + ("random_brightness", "random_color_degeneration",
                            "random_contrast", "random_sharpness")

    def __init__(self, value_range=(0, 255), num_chains=3, chain_depth=3, factor=0.3,
                 alpha=1.0, all_ops=True, interpolation="bilinear", seed=None,
                 data_format=None, **kwargs):
        super().__init__(factor=factor, data_format=data_format, **kwargs)
        self.value_range = _check_value_range("AugMix", value_range)
        for name, value in (("num_chains", num_chains), ("chain_depth", chain_depth)):
            if not isinstance(value, (int, np.integer)) or value < 1:
                raise InvalidArgumentError(
                    f"AugMix: {name} must be a positive integer, got {value!r}")
        if not alpha > 0:
            raise InvalidArgumentError(f"AugMix: alpha must be positive, got {alpha!r}")
        self.num_chains, self.chain_depth = int(num_chains), int(chain_depth)
        self.alpha, self.all_ops = float(alpha), bool(all_ops)
        self.interpolation, self.seed = interpolation, seed
        self._augment_layers = self._ALL_OPS if self.all_ops else self._SOME_OPS
        _operations(self, self._augment_layers)

    def augment(self, images, batch: int):
        gammas = ks_random.gamma((self.num_chains,), self.alpha, seed=self.seed).numpy()
        weights = (gammas / gammas.sum()).astype(np.float32)
        blend = float(ks_random.beta((), self.alpha, self.alpha, seed=self.seed).numpy())
        picks = ks_random.randint((self.num_chains, self.chain_depth), 0,
                                  len(self._augment_layers) + 1, seed=self.seed).numpy()
        mixed = None
        for chain, weight in zip(picks, weights):
            copy = images
            for pick in chain:
                if pick < len(self._augment_layers):  # the last choice: no operation
                    copy = getattr(self, self._augment_layers[int(pick)]).augment(copy, batch)
            term = copy * float(weight)
            mixed = term if mixed is None else mixed + term
        out = images * blend + mixed * (1.0 - blend)
        out = clip_ops.clip_by_value(out, self.value_range[0], self.value_range[1])
        return out if out.dtype == images.dtype else math_ops.cast(out, images.dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range,
                "num_chains": self.num_chains, "chain_depth": self.chain_depth,
                "alpha": self.alpha, "all_ops": self.all_ops,
                "interpolation": self.interpolation, "seed": self.seed}
