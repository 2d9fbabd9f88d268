"""Memory strategies, as src/memory/ implements them for the runtime (same test vectors)."""

from engram_ml.memory.framesamp import FrameSampMemory, frame_sampling_indices
from engram_ml.memory.mem0 import Mem0Inputs, Mem0Memory
from engram_ml.memory.tokendrop import TokenDropMemory

__all__ = ["FrameSampMemory", "Mem0Inputs", "Mem0Memory", "TokenDropMemory", "frame_sampling_indices"]
