"""LoRA (low-rank adaptation, Hu et al., 2021) for Dense, EinsumDense and Embedding, as Keras 3.

`enable_lora(rank)` freezes the layer's full weight (`kernel`, or `embeddings`) and adds two
trainable factors, A (the weight's leading axes, rank) and B (rank, the last axis), A from
`he_uniform` and B zeros, so the layer starts out unchanged. The layer then reads its weight
as `full + (lora_alpha / rank) * A @ B`: only A and B (and the bias) train. The names are
Keras's (`lora_kernel_a/b`, Embedding's `lora_embeddings_a/b`) and come after the layer's
other weights, as in Keras.

Saving writes what Keras writes: the MERGED weight in the full weight's place and no factors
(a `.keras` file with LoRA layers is the same size as without); loading reads it into the
frozen weight and zeroes the factors, so a loaded model predicts as the saved one.
"""

from __future__ import annotations

from kerasish import initializers
from kerasish.core import arguments
from kerasish.core.errors import InvalidArgumentError
from kerasish.core.ops import creation_ops, math_ops


class LoRAMixin:
    """What the LoRA layers share; a layer names its full weight in `_lora_target`
    ('kernel' or 'embeddings': a `lora_weight_property` of that name reads it merged when
    enabled) and its factors' names in `_lora_names`."""

    _lora_target = "kernel"
    _lora_names = ("lora_kernel_a", "lora_kernel_b")

    def _setup_lora(self, lora_rank, lora_alpha) -> None:
        kind = type(self).__name__
        if lora_rank is not None:
            lora_rank = arguments.integer(lora_rank, "lora_rank", kind)
        self.lora_rank = lora_rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else lora_rank
        self.lora_enabled = False

    def _constraint_of_target(self):
        return getattr(self, f"{self._lora_target}_constraint", None)

    def enable_lora(self, rank, lora_alpha=None, a_initializer="he_uniform",
                    b_initializer="zeros") -> None:
        """Freeze the full weight and add trainable low-rank factors A and B.

        Args:
            rank: the factors' rank (a positive integer).
            lora_alpha: the update's scale is `lora_alpha / rank` (default: `rank`, a
                scale of 1).
            a_initializer: A's initializer (default 'he_uniform').
            b_initializer: B's initializer (default 'zeros': the layer starts unchanged).

        Raises:
            InvalidArgumentError: the layer has a constraint on its full weight, is not
                built yet, or has LoRA already.

        Example:
            >>> import kerasish as ks
            >>> layer = ks.layers.Dense(4)
            >>> layer.build((None, 3))
            >>> layer.enable_lora(2)
            >>> [w.name.split("/")[-1] for w in layer.trainable_weights]
            ['bias', 'lora_kernel_a', 'lora_kernel_b']
        """
        kind = type(self).__name__
        if self._constraint_of_target() is not None:
            raise InvalidArgumentError(
                f"{kind} '{self.name}': LoRA is incompatible with a constraint on "
                f"`{self._lora_target}` (as in Keras): remove "
                f"`{self._lora_target}_constraint` to enable LoRA")
        if not self.built:
            raise InvalidArgumentError(
                f"{kind} '{self.name}': cannot enable LoRA on a layer that is not built yet "
                "(call it on data or call build(input_shape) first)")
        if self.lora_enabled:
            raise InvalidArgumentError(
                f"{kind} '{self.name}': LoRA is already enabled; it can be enabled only once "
                "per layer")
        rank = arguments.integer(rank, "rank", f"{kind}.enable_lora")
        full = self._full_weight()
        regularizer = getattr(self, f"{self._lora_target}_regularizer", None)
        a_name, b_name = self._lora_names
        # float32 factors, as Keras (no underflow when the layer computes in float16);
        # float64 for a float64 layer
        dtype = "float64" if str(full.dtype) == "float64" else "float32"
        a = self.add_weight(a_name, tuple(full.shape[:-1]) + (rank,),
                            initializer=initializers.get(a_initializer), dtype=dtype,
                            regularizer=regularizer)
        b = self.add_weight(b_name, (rank, full.shape[-1]),
                            initializer=initializers.get(b_initializer), dtype=dtype,
                            regularizer=regularizer)
        setattr(self, a_name, a)
        setattr(self, b_name, b)
        full._trainable = False  # frozen: only the factors (and the bias) train
        self.lora_enabled = True
        self.lora_rank = rank
        self.lora_alpha = lora_alpha if lora_alpha is not None else rank

    def _full_weight(self):
        """The full weight's variable (kept in the instance's dict under the weight's own
        name, so checkpoints and tracking see `kernel` / `embeddings` as before)."""
        return self.__dict__[self._lora_target]

    def _merged_weight(self):
        """The full weight, plus `(lora_alpha / lora_rank) * A @ B` when LoRA is enabled."""
        full = self._full_weight()
        if not getattr(self, "lora_enabled", False):
            return full
        a, b = (getattr(self, name) for name in self._lora_names)
        delta = math_ops.matmul(a, b) * (self.lora_alpha / self.lora_rank)
        if delta.dtype != full.dtype:
            delta = math_ops.cast(delta, full.dtype)
        return full + delta

    def _build_lora(self) -> None:
        """At the end of `build`: enable LoRA when the layer was made with `lora_rank`."""
        if self.lora_rank and not self.lora_enabled:
            self.built = True
            self.enable_lora(self.lora_rank, self.lora_alpha)

    def _variables_for_file(self, writing: bool) -> list:
        """The variables of the layer's `vars` group in a weights file, as Keras stores them:
        with LoRA enabled, the merged weight (writing) or the frozen one (reading) in the
        full weight's place, and no factors."""
        own = list(self._weights)
        if not self.lora_enabled:
            return own
        factors = {id(getattr(self, name)) for name in self._lora_names}
        full = self._full_weight()
        return [self._merged_weight() if (writing and v is full) else v
                for v in own if id(v) not in factors]

    def _after_weights_loaded(self) -> None:
        """Zero the factors after a load (the file's weight is the merged one), as Keras."""
        if self.lora_enabled:
            for name in self._lora_names:
                factor = getattr(self, name)
                factor.assign(creation_ops.zeros(factor.shape, dtype=factor.dtype))

    def _lora_config(self) -> dict:
        """`lora_rank` and `lora_alpha` for get_config, only when set (as Keras)."""
        if not self.lora_rank:
            return {}
        return {"lora_rank": self.lora_rank, "lora_alpha": self.lora_alpha}


def lora_weight_property(target: str):
    """A property `target` reading the merged weight (the variable itself when LoRA is
    off) and writing the variable `_target` (what `build` assigns)."""

    def get(self):
        return self._merged_weight()

    def put(self, value):
        self.__dict__[target] = value

    return property(get, put, doc=f"The layer's `{target}` (merged with LoRA's update when "
                                  "LoRA is enabled).")
