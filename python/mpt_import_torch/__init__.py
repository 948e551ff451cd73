"""mpt PyTorch frontend: build a whole training step (forward, backward,
optimizer update) from a torch.nn.Module and import it with torch-mlir's FX
importer as linalg-on-tensors MLIR that follows the mpt training-graph
contract (see docs/torch-import.md)."""


class UserError(Exception):
    """A user-facing error: printed as one line, non-zero exit."""
