"""The eager core: backend, tensors, tape, primitives and ops."""
