"""Losses both training recipes use."""

import torch
import torch.nn.functional as Fn


def focal_bce(logit: torch.Tensor, label: torch.Tensor, pos_weight: torch.Tensor, gamma: float = 2.0) -> torch.Tensor:
    """Focal binary cross-entropy on the subtask-end logit (positives weighted by `pos_weight`)."""
    bce = Fn.binary_cross_entropy_with_logits(logit, label, pos_weight=pos_weight, reduction="none")
    p = torch.sigmoid(logit)
    p_t = label * p + (1 - label) * (1 - p)
    return ((1 - p_t) ** gamma * bce).mean()
