"""Shared pytest fixtures: quiet TensorFlow, CPU only, small configs."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
