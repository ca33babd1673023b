"""The original module's functions, for code that imports them: the same
arguments and results (token-string `TrainingInstance`s, an external
`random.Random`), the same instances for the same `rng`.

Example:
  >>> import os, random, tempfile, tokenization
  >>> d = tempfile.mkdtemp()
  >>> vocab = os.path.join(d, "vocab.txt")
  >>> _ = open(vocab, "w").write("\\n".join(
  ...     ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat",
  ...      "dog", "ran", "."]))
  >>> corpus = os.path.join(d, "corpus.txt")
  >>> _ = open(corpus, "w").write(
  ...     "the cat sat.\\nthe dog ran.\\n\\nthe dog sat.\\nthe cat ran.\\n")
  >>> tok = tokenization.FullTokenizer(vocab)
  >>> instances = create_training_instances(
  ...     [corpus], tok, 16, 2, 0.1, 0.15, 3, random.Random(1))
  >>> len(instances), instances[0].tokens[0]
  (5, '[CLS]')
  >>> write_instance_to_example_files(instances, tok, 16, 3,
  ...                                 [os.path.join(d, "out.tfrecord")])
  5
"""

from absl import logging

from bert_tf2.pretraining_data import documents as documents_lib
from bert_tf2.pretraining_data import instances as instances_lib
from bert_tf2.pretraining_data import options as options_lib
from bert_tf2.pretraining_data import stages
from bert_tf2.pretraining_data import writer as writer_lib


class TrainingInstance(object):
  """One sentence pair with its masked-LM predictions (token strings).

  Attributes:
    tokens: list of str, `[CLS] A [SEP] B [SEP]` after masking.
    segment_ids: list of int, 0 for `[CLS] A [SEP]`, 1 for `B [SEP]`.
    masked_lm_positions: list of int, sorted.
    masked_lm_labels: list of str, the original tokens there.
    is_random_next: bool.
  """

  def __init__(self, tokens, segment_ids, masked_lm_positions,
               masked_lm_labels, is_random_next):
    self.tokens = tokens
    self.segment_ids = segment_ids
    self.masked_lm_positions = masked_lm_positions
    self.masked_lm_labels = masked_lm_labels
    self.is_random_next = is_random_next

  def __str__(self):
    return "".join([
        "tokens: %s\n" % " ".join(self.tokens),
        "segment_ids: %s\n" % " ".join(str(s) for s in self.segment_ids),
        "is_random_next: %s\n" % self.is_random_next,
        "masked_lm_positions: %s\n" % " ".join(
            str(p) for p in self.masked_lm_positions),
        "masked_lm_labels: %s\n" % " ".join(self.masked_lm_labels),
        "\n"])

  __repr__ = __str__


def _to_training_instance(instance, inv_vocab):
  n = len(instance.input_ids)
  zeros = instance.len_a + 2
  return TrainingInstance(
      tokens=[inv_vocab[i] for i in instance.input_ids],
      segment_ids=[0] * zeros + [1] * (n - zeros),
      masked_lm_positions=list(instance.masked_lm_positions),
      masked_lm_labels=[inv_vocab[i] for i in instance.masked_lm_ids],
      is_random_next=instance.is_random_next)


def create_training_instances(input_files, tokenizer, max_seq_length,
                              dupe_factor, short_seq_prob, masked_lm_prob,
                              max_predictions_per_seq, rng,
                              do_whole_word_mask=False):
  """Same arguments and result as the original function (list of
  TrainingInstance, in the original's order for the same `rng` state)."""
  options = options_lib.DataOptions(
      max_seq_length=max_seq_length, dupe_factor=dupe_factor,
      short_seq_prob=short_seq_prob, masked_lm_prob=masked_lm_prob,
      max_predictions_per_seq=max_predictions_per_seq,
      do_whole_word_mask=do_whole_word_mask)
  options_lib.check_vocab(tokenizer.vocab,
                          getattr(tokenizer, "vocab_file", "?"))
  stats = documents_lib.CorpusStats()
  all_documents = documents_lib.read_documents(
      input_files, stages.make_tokenize_ids(tokenizer), stats)
  rng.shuffle(all_documents)
  inst_options = stages.make_instance_options(tokenizer, options)
  result = []
  for _ in range(dupe_factor):
    for index in range(len(all_documents)):
      for instance in instances_lib.create_instances_from_document(
          all_documents, index, inst_options, rng):
        result.append(_to_training_instance(instance, tokenizer.inv_vocab))
  rng.shuffle(result)
  return result


def write_instance_to_example_files(instances, tokenizer, max_seq_length,
                                    max_predictions_per_seq, output_files):
  """Writes TrainingInstances round-robin to `output_files` (atomically);
  returns the number written."""
  encoder = writer_lib.ExampleEncoder(max_seq_length, max_predictions_per_seq,
                                      max(tokenizer.vocab.values()))
  vocab = tokenizer.vocab
  records = []
  with writer_lib.RoundRobinWriter(output_files) as writer:
    for instance in instances:
      record = encoder.encode(
          [vocab[t] for t in instance.tokens],
          instance.segment_ids.count(0) - 2, instance.masked_lm_positions,
          [vocab[t] for t in instance.masked_lm_labels],
          instance.is_random_next)
      writer.write(record)
      if len(records) < 20:
        records.append(record)
  stages.log_example_records(records, tokenizer, 20)
  logging.info("Wrote %d total instances", len(instances))
  return len(instances)

