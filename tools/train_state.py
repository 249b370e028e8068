"""Resumable training state for tools/train.py: everything that makes a resumed run continue exactly.

state.pt holds the model, optimizer and scheduler states, the update count, the epoch and the position in
that epoch's batch list, the batch RNG's state at the start of the epoch (the epoch's batch list is rebuilt
from it), the torch RNG states (dropout, on the CPU and on a GPU) and the run's running totals. It is written
to a temporary file and renamed, so a run killed while saving leaves the previous state intact.
"""
import os
import random

import torch

STATE_FILE = "state.pt"


def save_state(out_dir, model, opt, sched, config, progress, epoch_rng_state):
    """progress: dict with step, epoch, batch (next batch index in the epoch), minutes and the totals."""
    state = {
        "config": config, "model": model.state_dict(), "optimizer": opt.state_dict(),
        "scheduler": sched.state_dict(), "progress": dict(progress), "epoch_rng": epoch_rng_state,
        "torch_rng": torch.get_rng_state(), "python_rng": random.getstate(),
        "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
    }
    path = os.path.join(out_dir, STATE_FILE)
    torch.save(state, path + ".tmp")
    os.replace(path + ".tmp", path)


def load_state(out_dir, model, opt, sched, config):
    """Restore a saved state into model/opt/sched; returns (progress, epoch_rng_state), or None if absent."""
    path = os.path.join(out_dir, STATE_FILE)
    if not os.path.exists(path):
        return None
    state = torch.load(path, map_location="cpu")  # load_state_dict moves each tensor to its parameter
    if state["config"] != config:
        raise SystemExit(f"{path}: saved with model {state['config']}, this run asks for {config}; "
                         f"use another --out or the same model options")
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["optimizer"])
    sched.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["torch_rng"])
    if state.get("cuda_rng") is not None and torch.cuda.is_available():  # dropout masks drawn on a GPU
        torch.cuda.set_rng_state_all(state["cuda_rng"])
    random.setstate(state["python_rng"])
    return state["progress"], state["epoch_rng"]
