"""Compute-bound training steps, kerasish beside PyTorch eager on the same device (issue 23).

Two steps where the kernels, not the launches, decide the time:

- `resnet`: a ResNet-style CNN on 32x32x3 images at batch 256 (a 3x3 stem of 64 filters,
  then two basic blocks per stage at 64, 128 and 256 filters, the later stages opening
  with a strided block and a 1x1 projection; BatchNormalization after every convolution,
  global average pooling, Dense(10)), softmax cross-entropy, SGD with momentum;
- `transformer`: one Transformer encoder block on (64, 256, 512) (MultiHeadAttention
  with 8 heads of 64, a 2048-wide ReLU feed-forward, post-norm LayerNormalization, a
  Dense(1) head on the mean token), mean squared error, Adam.

Each step is one tape, one gradient and one update; kerasish runs compiled (`ks.function`)
and eager, PyTorch eager; rounds alternate the contenders and the median is reported, with
its ratio to PyTorch eager. `--device cpu` (and `--small`) runs the same code on the CPU,
which is how it is checked without a GPU.

Usage (repository root):

    python benchmarks/gpu_compute_bench.py [--device gpu|cpu] [--small] [--rounds N]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import kerasish as ks  # noqa: E402


def sizes(small: bool) -> dict:
    if small:
        return {"resnet": (8, 16), "transformer": (4, 32, 64)}
    return {"resnet": (256, 32), "transformer": (64, 256, 512)}


def kerasish_resnet(side: int):
    def conv_bn(x, filters, kernel, strides=1, relu=True):
        x = ks.layers.Conv2D(filters, kernel, strides=strides, padding="same", use_bias=False)(x)
        x = ks.layers.BatchNormalization(momentum=0.9, epsilon=1e-5)(x)
        return ks.layers.ReLU()(x) if relu else x

    inputs = ks.Input((side, side, 3))
    x = conv_bn(inputs, 64, 3)
    for stage, filters in enumerate((64, 128, 256)):
        for block in range(2):
            strides = 2 if stage > 0 and block == 0 else 1
            shortcut = x
            y = conv_bn(x, filters, 3, strides)
            y = conv_bn(y, filters, 3, relu=False)
            if strides != 1:
                shortcut = conv_bn(x, filters, 1, strides, relu=False)
            x = ks.layers.ReLU()(ks.layers.Add()([y, shortcut]))
    x = ks.layers.GlobalAveragePooling2D()(x)
    return ks.Model(inputs, ks.layers.Dense(10)(x))


def kerasish_transformer(width: int):
    inputs = ks.Input((None, width))
    attended = ks.layers.MultiHeadAttention(num_heads=8, key_dim=width // 8)(inputs, inputs)
    x = ks.layers.LayerNormalization(epsilon=1e-5)(ks.layers.Add()([inputs, attended]))
    hidden = ks.layers.Dense(4 * width, activation="relu")(x)
    x = ks.layers.LayerNormalization(epsilon=1e-5)(
        ks.layers.Add()([x, ks.layers.Dense(width)(hidden)]))
    x = ks.layers.GlobalAveragePooling1D()(x)
    return ks.Model(inputs, ks.layers.Dense(1)(x))


def kerasish_trainer(kind: str, shape: tuple, compiled: bool):
    ks.random.set_seed(0)
    if kind == "resnet":
        model = kerasish_resnet(shape[1])
        optimizer = ks.optimizers.SGD(0.01, momentum=0.9)
        loss_fn = ks.losses.SparseCategoricalCrossentropy(from_logits=True)
    else:
        model = kerasish_transformer(shape[2])
        optimizer = ks.optimizers.Adam(1e-4)
        loss_fn = ks.losses.MeanSquaredError()

    def step(x, y):
        with ks.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return ks.function(step) if compiled else step


def tf32(step):
    """`step` with TF32 matrix products on (kerasish's default is off)."""
    def run(x, y):
        ks.config.experimental.enable_tensor_float_32_execution(True)
        try:
            return step(x, y)
        finally:
            ks.config.experimental.enable_tensor_float_32_execution(False)
    return run


def torch_trainer(kind: str, shape: tuple, device: str):
    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.manual_seed(0)

    def conv_bn(cin, cout, kernel, stride=1, relu=True):
        layers = [nn.Conv2d(cin, cout, kernel, stride, padding=kernel // 2, bias=False),
                  nn.BatchNorm2d(cout, momentum=0.1, eps=1e-5)]
        return nn.Sequential(*layers, nn.ReLU()) if relu else nn.Sequential(*layers)

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.body = nn.Sequential(conv_bn(cin, cout, 3, stride),
                                      conv_bn(cout, cout, 3, relu=False))
            self.shortcut = (conv_bn(cin, cout, 1, stride, relu=False) if stride != 1
                             else nn.Identity())

        def forward(self, x):
            return F.relu(self.body(x) + self.shortcut(x))

    if kind == "resnet":
        blocks, cin = [conv_bn(3, 64, 3)], 64
        for stage, filters in enumerate((64, 128, 256)):
            for block in range(2):
                blocks.append(Block(cin, filters, 2 if stage > 0 and block == 0 else 1))
                cin = filters
        model = nn.Sequential(*blocks, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, 10))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        loss_fn = F.cross_entropy
    else:
        width = shape[2]

        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = nn.TransformerEncoderLayer(width, 8, 4 * width, dropout=0.0,
                                                        batch_first=True)
                self.head = nn.Linear(width, 1)

            def forward(self, x):
                return self.head(self.layer(x).mean(1))

        model = Encoder()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
        loss_fn = F.mse_loss
    model = model.to(device).train()

    def step(x, y):
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


def data(kind: str, shape: tuple, rng) -> tuple:
    if kind == "resnet":
        batch, side = shape
        return (rng.standard_normal((batch, side, side, 3)).astype(np.float32),
                rng.integers(0, 10, batch).astype(np.int64))
    return (rng.standard_normal(shape).astype(np.float32),
            rng.standard_normal((shape[0], 1)).astype(np.float32))


def run(kind: str, shape: tuple, device: str, rounds: int, steps: int,
        half: bool = False) -> list:
    """Rows (case, contender, median ms per step, ratio to PyTorch eager). `half`: kerasish
    under the mixed_float16 policy, PyTorch under float16 autocast (neither scales the loss)."""
    import contextlib

    import torch

    gpu = device == "gpu"
    if gpu:
        import cupy as cp

    def sync():
        if gpu:
            cp.cuda.Device().synchronize()
            torch.cuda.synchronize()

    x, y = data(kind, shape, np.random.default_rng(0))
    torch_device = "cuda" if gpu else "cpu"
    tx = torch.from_numpy(x.transpose(0, 3, 1, 2).copy() if kind == "resnet" else x)
    tx, ty = tx.to(torch_device), torch.from_numpy(y).to(torch_device)
    with ks.device(f"/{device}:0"):
        kx, ky = ks.constant(x), ks.constant(y.astype(np.int32) if kind == "resnet" else y)
        if half:
            ks.mixed_precision.set_global_policy("mixed_float16")
        contenders = {"kerasish compiled": (kerasish_trainer(kind, shape, True), kx, ky),
                      "kerasish eager": (kerasish_trainer(kind, shape, False), kx, ky)}
        if gpu and not half:  # PyTorch's cuDNN convolutions use TF32 by default
            contenders["kerasish compiled, TF32"] = (tf32(kerasish_trainer(kind, shape, True)),
                                                     kx, ky)
        ks.mixed_precision.set_global_policy("float32")
        torch_step = torch_trainer(kind, shape, torch_device)

        def autocast_step(a, b):
            scope = (torch.autocast(torch_device, torch.float16) if half
                     else contextlib.nullcontext())
            with scope:
                return torch_step(a, b)

        contenders["PyTorch eager"] = (autocast_step, tx, ty)
        times = {name: [] for name in contenders}
        for step, a, b in contenders.values():  # built, traced, warmed up
            for _ in range(2):
                step(a, b)
        sync()
        for _ in range(rounds):
            for name, (step, a, b) in contenders.items():
                sync()
                start = time.perf_counter()
                for _ in range(steps):
                    step(a, b)
                sync()
                times[name].append((time.perf_counter() - start) / steps * 1e3)
    reference = statistics.median(times["PyTorch eager"])
    label = f"{kind} {'x'.join(map(str, shape))}{' float16' if half else ''}"
    return [(label, name, f"{statistics.median(v):.2f} ms",
             f"{statistics.median(v) / reference:.2f}x") for name, v in times.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("gpu", "cpu"), default="gpu")
    parser.add_argument("--small", action="store_true", help="tiny shapes, to check the code")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--half", action="store_true",
                        help="mixed_float16 against PyTorch's float16 autocast")
    args = parser.parse_args()
    for kind, shape in sizes(args.small).items():
        for row in run(kind, shape, args.device, args.rounds, args.steps, args.half):
            print(" | ".join(row), flush=True)


if __name__ == "__main__":
    main()
