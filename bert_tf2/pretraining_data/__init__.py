"""BERT pretraining data: the original create_pretraining_data, faster.

    import tokenization
    from bert_tf2.pretraining_data import DataOptions, run
    tokenizer = tokenization.FullTokenizer("vocab.txt", do_lower_case=True)
    stats = run(["corpus.txt"], ["out.tfrecord"], tokenizer,
                DataOptions(max_seq_length=128, dupe_factor=10))

Modules:
* documents: reading the corpus (bytes split on "\\n", UTF-8 with undecodable
  bytes dropped and counted), documents of tokenized sentences;
* instances: sentence-pair instances with the original's random draws;
* masking: masked-LM predictions (per token, or whole word as on master);
* writer: tf.train.Example bytes without protobuf objects; atomic
  round-robin TFRecord output;
* pipeline: the single-process run (the original's exact instances);
* parallel: sharded multi-process streaming run (`num_workers >= 2`);
* options: flag validation.

See docs/pretraining_data.md.
"""

from bert_tf2.pretraining_data.documents import CorpusStats
from bert_tf2.pretraining_data.options import DataOptions
from bert_tf2.pretraining_data.pipeline import run

__all__ = ["CorpusStats", "DataOptions", "run"]
