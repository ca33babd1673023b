"""The peers of `bench.bench_text_e2e`, each as its competent user writes it.

Every peer answers one batch of raw strings at a time (`answer_batch`),
padded to the batch's longest text, with the fine-tuned weights of the
run being measured (ours' checkpoint in Hugging Face names: `hf_weights`),
so that its labels can be checked against ours and its accuracy against
the dev labels: the same work, the same model, the same answers.

Hugging Face (torch, 2 intra-op threads = the cores):
  hf_P            the loop its docs teach: fast tokenizer (padding=True,
                  truncation), `BertForSequenceClassification` (SDPA
                  attention, its default) under `torch.inference_mode()`;
                  P = float32 or bfloat16 (bfloat16 weights, not autocast)
  hf_compile_P    the same model through `torch.compile(dynamic=True)`
                  (inductor; every batch shape compiled in the warm pass)
  hf_freeze_P     the same with inductor's `freezing` on: the weights
                  constant-folded and prepacked for oneDNN (AMX in
                  bfloat16), PyTorch's advice for CPU inference
  hf_compile_eager_P / hf_freeze_eager_P  the two above with
                  `attn_implementation="eager"`: attention as its matmuls
                  and softmax, which inductor fuses with the mask and
                  scale; on short texts faster than SDPA's one CPU kernel
                  (flash attention, 2.1 ms a layer on a batch of 32 of
                  these sentences)
  hf_pipeline_P   `pipeline("text-classification")`, the one-line path
ONNX Runtime (the same weights exported by torch.onnx, opset 17):
  hf_ort_float32  `onnxruntime.transformers.optimizer` (model_type bert:
                  fused attention, LayerNorm, GELU, bias adds), as ONNX
                  Runtime's docs advise for BERT on CPU
  hf_ort_int8     `quantize_dynamic` at its defaults on the plain export
  hf_ort_opt_int8 the optimized graph, then `quantize_dynamic`
                  (per-tensor weights, as Optimum's avx2 dynamic config)
keras-hub (`BertTextClassifier` of the same weights):
  keras_hub_P     `model.predict(texts)`: its preprocessor pads every text
                  to max_seq_length (its API has no dynamic padding); the
                  policy "whole" only (a `predict` call per batch pays
                  the tf.data autotuner's teardown each time)
  keras_hub_trim_float32 / keras_hub_xla_float32  its preprocessor, the
                  batch cut to its longest text, the model called in a
                  `tf.function` (XLA off / on), as a user who wants
                  dynamic padding writes it; no `predict` (whose tf.data
                  autotuner teardown costs each call seconds)
"""

import os
import tempfile

import numpy as np

NUM_LABELS = 2


# ---- the fine-tuned weights in Hugging Face names -------------------------

def hf_weights(checkpoint, minilm_dir, path):
  """Writes ours' fine-tuned classifier `checkpoint` as Hugging Face
  `BertForSequenceClassification` tensors (npz at path); returns path.
  Names from `modeling.hf_names` (one rule per tensor of MiniLM's
  model.safetensors), transposed where it transposes; the head's
  `output_weights` [labels, hidden] is torch's Linear layout already."""
  # pylint: disable=g-import-not-at-top
  import safetensors
  import tensorflow as tf
  from modeling import hf_names
  reader = tf.train.load_checkpoint(checkpoint)
  out = {}
  with safetensors.safe_open(os.path.join(minilm_dir, "model.safetensors"),
                            "np") as minilm:
    keys = list(minilm.keys())  # The tensors MiniLM's HF model has.
  for key in keys:
    found = hf_names.original_name(key)
    if found is None:
      continue
    name, transposed = found
    ours = reader.get_tensor(name)
    out["bert." + key.removeprefix("bert.")] = (ours.T if transposed
                                                else ours)
  out["classifier.weight"] = reader.get_tensor("output_weights")
  out["classifier.bias"] = reader.get_tensor("output_bias")
  np.savez(path, **out)
  return path


# ---- Hugging Face ---------------------------------------------------------

def hf_model(args, dtype_name="float32", attention="sdpa"):
  """(tokenizer, BertForSequenceClassification with args.hf_weights);
  attention: its `attn_implementation`."""
  # pylint: disable=g-import-not-at-top
  import torch
  import transformers
  torch.set_num_threads(os.cpu_count())
  tokenizer = transformers.AutoTokenizer.from_pretrained(args.hf_dir)
  model = transformers.BertForSequenceClassification.from_pretrained(
      args.hf_dir, num_labels=NUM_LABELS, attn_implementation=attention)
  state = {k: torch.from_numpy(v) for k, v in np.load(args.hf_weights).items()}
  missing, unexpected = model.load_state_dict(state, strict=False)
  if unexpected or [m for m in missing if "position_ids" not in m]:
    raise ValueError("hf weights: missing %s, unexpected %s"
                     % (missing, unexpected))
  model = model.to(getattr(torch, dtype_name)).eval()
  return tokenizer, model


def hf_answer(args):
  """(answer_batch, whole) of a Hugging Face variant `args.worker`."""
  # pylint: disable=g-import-not-at-top
  import torch
  name = args.worker
  if name.startswith("hf_ort_"):
    return ort_answer(args), None
  dtype = "bfloat16" if name.endswith("bfloat16") else "float32"
  attention = "eager" if "_eager_" in name else "sdpa"
  tokenizer, model = hf_model(args, dtype, attention)
  kw = dict(truncation=True, max_length=args.max_seq_length)
  if name.startswith("hf_pipeline_"):
    import transformers
    pipe = transformers.pipeline("text-classification", model=model,
                                 tokenizer=tokenizer, device=-1)
    index = lambda r: int(r["label"].rsplit("_", 1)[-1])
    return ((lambda texts: [index(r) for r in pipe(
        texts, batch_size=len(texts), **kw)]),
            (lambda texts: [index(r) for r in pipe(
                texts, batch_size=args.batch_size, **kw)]))
  run = model
  if name.startswith(("hf_compile_", "hf_freeze_")):
    if name.startswith("hf_freeze_"):
      import torch._inductor.config  # pylint: disable=g-import-not-at-top
      torch._inductor.config.freezing = True  # pylint: disable=protected-access
    run = torch.compile(model, dynamic=True)
  if args.corpus == "bbc":
    return windows_answer(args, tokenizer, lambda enc: run(**{
        k: torch.from_numpy(v) for k, v in enc.items()}).logits), None

  def answer_batch(texts):
    enc = tokenizer(texts, padding=True, return_tensors="pt", **kw)
    with torch.inference_mode():
      return run(**enc).logits.argmax(-1).tolist()
  return answer_batch, None


def ort_answer(args):
  """answer_batch of an ONNX Runtime variant (see module)."""
  from bench import peer_hf  # pylint: disable=g-import-not-at-top
  tokenizer, model = hf_model(args)
  names = peer_hf.INPUT_NAMES
  session = peer_hf.ort_session(
      model, tokenizer(["a short text"], return_tensors="pt"), ["logits"],
      tempfile.mkdtemp(),
      optimize=args.worker in ("hf_ort_float32", "hf_ort_opt_int8"),
      quantize=args.worker.endswith("int8"))
  if args.corpus == "bbc":
    return windows_answer(args, tokenizer, lambda enc: session.run(None, {
        n: enc[n].astype(np.int64) for n in names})[0])

  def answer_batch(texts):
    enc = tokenizer(texts, padding=True, truncation=True,
                    max_length=args.max_seq_length, return_tensors="np")
    logits = session.run(None, {n: enc[n].astype(np.int64) for n in names})
    return logits[0].argmax(-1).tolist()
  return answer_batch


def windows_answer(args, tokenizer, logits_of):
  """answer_batch on whole articles: the tokenizer's overflowing windows
  (as its question-answering pipeline makes them; windows start
  --doc_stride pieces apart, as ours do), `logits_of(numpy features)`
  on batches of windows, the logits averaged per article."""
  import torch  # pylint: disable=g-import-not-at-top
  names = ("input_ids", "attention_mask", "token_type_ids")

  def answer_batch(texts):
    enc = tokenizer(texts, truncation=True, max_length=args.max_seq_length,
                    # [CLS] and [SEP] take 2 of max_length.
                    stride=args.max_seq_length - 2 - args.doc_stride,
                    return_overflowing_tokens=True)
    owner = np.array(enc.pop("overflow_to_sample_mapping"))
    logits = []
    for i in range(0, len(owner), args.batch_size):
      batch = tokenizer.pad({k: v[i:i + args.batch_size]
                             for k, v in enc.items()}, return_tensors="np")
      with torch.inference_mode():
        logits.append(np.asarray(logits_of({n: batch[n] for n in names}),
                                 np.float32))
    logits = np.concatenate(logits)
    return [int(logits[owner == t].mean(0).argmax())
            for t in range(len(texts))]
  return answer_batch


# ---- keras-hub ------------------------------------------------------------

def keras_hub_answer(args):
  """(answer_batch, whole) of a keras-hub variant `args.worker`."""
  os.environ.setdefault("KERAS_BACKEND", "tensorflow")
  # pylint: disable=g-import-not-at-top
  import keras
  import keras_hub
  import tensorflow as tf
  from bench import peer_keras_hub
  if args.worker.endswith("bfloat16"):
    keras.mixed_precision.set_global_policy("mixed_bfloat16")
  tokenizer = keras_hub.models.BertTokenizer(
      vocabulary=os.path.join(args.hf_dir, "vocab.txt"), lowercase=True)
  preprocessor = keras_hub.models.BertTextClassifierPreprocessor(
      tokenizer, sequence_length=args.max_seq_length)
  model = keras_hub.models.BertTextClassifier(
      peer_keras_hub.make_backbone("minilm"), num_classes=NUM_LABELS,
      preprocessor=preprocessor, activation=None, dropout=0.0)
  load_keras_hub_weights(model, np.load(args.hf_weights))
  if args.worker.startswith("keras_hub_trim_") or args.worker.startswith(
      "keras_hub_xla_"):
    call = tf.function(lambda x: model(x, training=False),
                       jit_compile=args.worker.startswith("keras_hub_xla_"),
                       reduce_retracing=True)

    def answer_batch(texts):
      x = preprocessor(tf.constant(texts))
      length = int(tf.reduce_max(tf.reduce_sum(
          tf.cast(x["padding_mask"], tf.int32), 1)))
      x = {k: v[:, :length] for k, v in x.items()}
      return np.asarray(call(x)).argmax(-1).tolist()
    return answer_batch, None
  return None, lambda texts: model.predict(
      texts, batch_size=args.batch_size, verbose=0).argmax(-1).tolist()


def load_keras_hub_weights(model, hf):
  """Sets keras-hub BertTextClassifier `model`'s weights from Hugging Face
  tensors `hf` (`hf_weights`); its head's pooler is the backbone's."""
  backbone = model.backbone
  t = lambda k: np.asarray(hf[k])
  backbone.get_layer("token_embedding").embeddings.assign(
      t("bert.embeddings.word_embeddings.weight"))
  backbone.get_layer("position_embedding").position_embeddings.assign(
      t("bert.embeddings.position_embeddings.weight"))
  backbone.get_layer("segment_embedding").embeddings.assign(
      t("bert.embeddings.token_type_embeddings.weight"))
  norm = backbone.get_layer("embeddings_layer_norm")
  norm.gamma.assign(t("bert.embeddings.LayerNorm.weight"))
  norm.beta.assign(t("bert.embeddings.LayerNorm.bias"))
  heads = backbone.num_heads
  for i in range(backbone.num_layers):
    layer = backbone.get_layer("transformer_layer_%d" % i)
    p = "bert.encoder.layer.%d." % i
    attention = layer._self_attention_layer  # pylint: disable=protected-access
    for part, dense in (("query", attention._query_dense),  # pylint: disable=protected-access
                        ("key", attention._key_dense),  # pylint: disable=protected-access
                        ("value", attention._value_dense)):  # pylint: disable=protected-access
      w = t(p + "attention.self.%s.weight" % part).T
      dense.kernel.assign(w.reshape(w.shape[0], heads, -1))
      dense.bias.assign(t(p + "attention.self.%s.bias" % part).reshape(
          heads, -1))
    w = t(p + "attention.output.dense.weight").T
    attention._output_dense.kernel.assign(  # pylint: disable=protected-access
        w.reshape(heads, -1, w.shape[1]))
    attention._output_dense.bias.assign(t(p + "attention.output.dense.bias"))  # pylint: disable=protected-access
    for norm, name in ((layer._self_attention_layer_norm,  # pylint: disable=protected-access
                        "attention.output.LayerNorm"),
                       (layer._feedforward_layer_norm, "output.LayerNorm")):  # pylint: disable=protected-access
      norm.gamma.assign(t(p + name + ".weight"))
      norm.beta.assign(t(p + name + ".bias"))
    for dense, name in ((layer._feedforward_intermediate_dense,  # pylint: disable=protected-access
                         "intermediate.dense"),
                        (layer._feedforward_output_dense, "output.dense")):  # pylint: disable=protected-access
      dense.kernel.assign(t(p + name + ".weight").T)
      dense.bias.assign(t(p + name + ".bias"))
  pooler = backbone.get_layer("pooled_dense")
  pooler.kernel.assign(t("bert.pooler.dense.weight").T)
  pooler.bias.assign(t("bert.pooler.dense.bias"))
  model.output_dense.kernel.assign(t("classifier.weight").T)
  model.output_dense.bias.assign(t("classifier.bias"))
