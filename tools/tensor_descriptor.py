"""`TensorDescriptor`, the host-side tensor descriptor a kernel takes as one argument, where
Triton keeps it (`triton.tools.tensor_descriptor`); see `blkc.host_descriptors`."""

from blkc.host_descriptors import TensorDescriptor

__all__ = ["TensorDescriptor"]
