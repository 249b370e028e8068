# Thin wrapper over CMake. `make` builds, `make test` runs every test, see README.md for the rest.
BUILD ?= build
BUILD_TYPE ?= Release
PREFIX ?= /usr/local
JOBS ?= $(shell nproc)
# Ninja where it is installed (`make deps` installs it): it keeps both cores busy to the end of a first build.
# A build directory keeps the generator it was made with.
GENERATOR = $(if $(wildcard $(1)/CMakeCache.txt),,$(if $(shell command -v ninja),-G Ninja))
PYTHON ?= /usr/bin/python3
DEPS = cmake g++ make ninja-build pkg-config libopenblas-dev libsentencepiece-dev sentencepiece libcli11-dev \
       nlohmann-json3-dev catch2 zlib1g-dev libzip-dev libisal-dev libicu-dev libcld2-dev help2man dpkg-dev parallel \
       librsvg2-bin bash-completion libcpp-httplib-dev curl python3-requests \
       libcurl4-openssl-dev libssl-dev libarchive-dev libgumbo-dev libmd4c-dev libpugixml-dev python3-jsonschema python3-docx \
       python3-odf python3-pybind11 python3-dev cmark-gfm
TOOLS_DEPS = python3-torch python3-sentencepiece python3-numpy dict-freedict-eng-deu
# What CI adds: the sanitizer and fuzzing compiler, and the browser the page tests drive.
CI_DEPS = clang libclang-rt-14-dev chromium

.PHONY: all build build-all test test-asan deps deps-tools deps-ci install deb fixtures model model-de-en model-smoke model-de-en-smoke model-multi30k bench bench-ct2 bench-marian bench-glossary bench-latency bench-scaling bench-contention bench-serve bench-html-memory fuzz fuzz-smoke stress format clean

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(call GENERATOR,$(BUILD)) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_EXTRA)

# `make` builds the program alone (a first translation needs no tests); `make test` builds everything.
build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target nmt

build-all: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# ctest counts the skipped tests but does not say why: each one's reason (the line it printed after the
# marker set in CMakeLists.txt) follows the summary.
test: build-all
	cd $(BUILD) && { ctest --output-on-failure -j $(JOBS); status=$$?; \
	  awk '/^[0-9]+\/[0-9]+ Testing: /{sub(/^[^:]*: /, ""); name = $$0} \
	       /^nmt-test-skipped: /{sub(/^[^:]*: /, ""); print "skipped: " name ": " $$0; n++} \
	       END {print n + 0 " test(s) skipped (ctest counts them among the passed)"}' \
	    Testing/Temporary/LastTest.log; exit $$status; }

# The same tests under AddressSanitizer + UndefinedBehaviorSanitizer, in their own build dir.
test-asan:
	$(MAKE) test BUILD=build-asan BUILD_TYPE=Debug CMAKE_EXTRA=-DNMT_SANITIZE=ON

deps:
	apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEPS)

deps-tools:
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(TOOLS_DEPS)

deps-ci:
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(CI_DEPS)

# Only what is installed is built (no tests), whatever $(BUILD) was configured with; PREFIX wins.
install: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target nmt_installed
	cmake --install $(BUILD) --prefix $(PREFIX)
	if [ -w /etc/ld.so.cache ]; then ldconfig; fi

# A Debian package (CPack) in the repository root: `apt install ./nmt_*.deb`, `apt remove nmt`.
DEB_BUILD ?= build-deb
deb:
	cmake -S . -B $(DEB_BUILD) $(call GENERATOR,$(DEB_BUILD)) -DCMAKE_BUILD_TYPE=Release -DNMT_TESTS=OFF -DNMT_GZIP_MAN=ON -DCMAKE_INSTALL_PREFIX=/usr
	cmake --build $(DEB_BUILD) -j $(JOBS)
	cd $(DEB_BUILD) && cpack -G DEB
	cp $(DEB_BUILD)/package/nmt_*.deb .

fixtures:
	$(PYTHON) tools/make_fixtures.py --out tests/fixtures
	cd tools && $(PYTHON) attention_fixture.py --out ../tests/fixtures

# The default model data/general-en-de (its card: data/general-en-de/README.md): Multi30k + Tatoeba + WMT news,
# shipped as int8. Seven stages: the main run; one epoch that starts from its weights with Multi30k weighted up;
# distillation, from those weights, on the teacher's translations (kd.* in ../shared/data/general-en-de-extra)
# beside the original pairs; then one epoch from stage 3 that adds back-translations of mono.de by the German->
# English model (SYNTH_WORK/de-en, below); then stage 5, from stage 4's int8 export, many more updates of large
# batches over every source with those back-translations and the mined pairs (GENERAL_LONG_ARGS: the shipped
# weights were trained on a lent GPU, GENERAL_DEVICE=cuda, each batch in one piece; on 2 CPU cores it is the
# longest stage by far, its card says how long, and --accumulate 8 keeps its memory near 3 GB); then stage 6,
# from stage 5's int8 export, an hour on one CPU core with the mined human pairs weighted up (GENERAL_TAIL_ARGS);
# then stage 7, from stage 6's int8 export, the same at a higher lr with Tatoeba weighted up too (GENERAL_LAST_ARGS).
# Stage 3 is also exported on its own (GENERAL_STAGE3): data/general-de-en starts from it. GENERAL_DISTILL_INIT
# starts stage 3 from other weights (tools/import_checkpoint.py turns a shipped model back into them). Resumable: each
# stage stops after GENERAL_BUDGET_MIN minutes with its state saved (exit status 75) and the same command
# continues it; the export runs once every stage is done.
GENERAL_BUDGET_MIN ?= 120
GENERAL_WORK ?= build/train-general
GENERAL_OUT ?= data/general-en-de
GENERAL_STAGE3 ?= $(GENERAL_WORK)/stage3
GENERAL_DATA ?= ../shared/data/multi30k
GENERAL_MODEL_ARGS ?= --vocab 8000 --d-model 256 --heads 4 --enc-layers 3 --dec-layers 3 --ffn 1024 --bf16
GENERAL_TRAIN_ARGS ?= --mix multi30k=1,tatoeba=2,news=0.5 --dropout 0.2 --label-smoothing 0.1 --lr 2e-3 \
	--warmup 800 --max-tokens 2500 --epochs 6 --cooldown 0.3 --average 1 --bleu-every 3 --bleu-sentences 500
GENERAL_FINETUNE_ARGS ?= --mix multi30k=3,tatoeba=2,news=0.5 --dropout 0.2 --label-smoothing 0.1 --lr 7e-4 \
	--warmup 100 --max-tokens 2500 --epochs 1 --cooldown 1.0 --average 1 --bleu-every 1 --bleu-sentences 500
GENERAL_DISTILL_ARGS ?= --mix kd=1,multi30k=0.5,tatoeba=1,news=1 --dropout 0.2 --label-smoothing 0.1 --lr 1e-3 \
	--warmup 200 --max-tokens 2500 --epochs 4 --cooldown 1.0 --average 1 --bleu-every 0
GENERAL_DISTILL_INIT ?= $(GENERAL_WORK)/finetune/avg.pt
GENERAL_BACKTRANS_ARGS ?= --mix kd=0.5,tatoeba=1,multi30k=0.25,news=0.25,bt=0.3 --dropout 0.2 --label-smoothing 0.1 \
	--lr 3e-4 --warmup 100 --max-tokens 2500 --epochs 1 --cooldown 1.0 --average 1 --bleu-every 0
# The large-batch stage of both recipes (stage 5 here, stage 4 of `make model-de-en`); each gives its length.
LONG_STAGE_ARGS = --mix multi30k=1,tatoeba=2,news=1,kd=1,bt=1,mined=2 --dropout 0.1 --label-smoothing 0.1 \
	--lr 5e-4 --warmup 200 --max-tokens 32000 --accumulate 8 --cooldown 0.5 --average 1 --bleu-every 0
GENERAL_LONG_ARGS ?= $(LONG_STAGE_ARGS) --steps 2036
# The small-batch stage of both recipes (stage 6 here, stage 5 of `make model-de-en`): the mined human pairs three
# times over, the sentences an everyday user types most.
TAIL_STAGE_ARGS = --mix mined=3,tatoeba=2,kd=0.5,bt=0.3,multi30k=0.3,news=0.3 --dropout 0.1 --label-smoothing 0.1 \
	--lr 2e-4 --warmup 100 --max-tokens 6000 --cooldown 1.0 --average 1 --bleu-every 0
GENERAL_TAIL_ARGS ?= $(TAIL_STAGE_ARGS) --steps 1107
# The last stage of both recipes (stage 7 here, stages 6 and 7 of `make model-de-en`): the tail stage's kind at a
# higher lr, the mined pairs five times over and Tatoeba three; each recipe adds its back-translations' weight and
# length.
LAST_STAGE_MIX = mined=5,tatoeba=3,kd=0.5,multi30k=0.3,news=0.2
LAST_STAGE_ARGS = --dropout 0.1 --label-smoothing 0.1 --lr 5e-4 --warmup 200 --max-tokens 6000 --cooldown 0.5 \
	--average 1 --bleu-every 0
GENERAL_LAST_ARGS ?= --mix $(LAST_STAGE_MIX),bt=0.5 $(LAST_STAGE_ARGS) --steps 1800
GENERAL_DEVICE ?= cpu
# The synthetic sources of stages 5-7 (SYNTH_WORK, below).
GENERAL_SYNTH = --synthetic bt=$(SYNTH_WORK)/de-en --synthetic mined=$(SYNTH_WORK)/mined
GENERAL_EXPORT_ARGS ?= --beam 5 --length-penalty 1.0 --no-repeat-ngram-size 4 --alignment-layer 1
# Monolingual text and the teacher's translations (../shared/data/general-en-de-extra), and the command that
# translates it into synthetic pairs (tools/synth_data.py: --model, --input, --out).
GENERAL_EXTRA = $(dir $(GENERAL_DATA))general-en-de-extra
SYNTH_DATA = nice -n 19 $(PYTHON) tools/synth_data.py --nmt $(BUILD)/nmt
# Pairs made by the bundled models, for both recipes, cached under SYNTH_WORK: mono.de translated by the
# German->English model (SYNTH_WORK/de-en: back-translations for English->German), mono.en by the
# English->German one (SYNTH_WORK/en-de: back-translations for German->English), and the human pairs mined from
# the two files through those translations (SYNTH_WORK/mined, tools/mine_pairs.py). tools/train.py drops every
# pair, of these and of the given corpora, that holds an everyday sentence the cards judge. Delete SYNTH_WORK to
# make them again with newer bundled models.
SYNTH_WORK ?= build/synth
SYNTH_DE_EN_MODEL ?= $(DE_EN_OUT)
SYNTH_EN_DE_MODEL ?= $(GENERAL_OUT)
SYNTH_ARGS ?= --beam 1
$(SYNTH_WORK)/de-en.en.gz: | $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target nmt
	$(SYNTH_DATA) --model $(SYNTH_DE_EN_MODEL) --input $(GENERAL_EXTRA)/mono.de.gz --out $(SYNTH_WORK)/de-en \
		$(SYNTH_ARGS)
$(SYNTH_WORK)/en-de.en.gz: | $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target nmt
	$(SYNTH_DATA) --model $(SYNTH_EN_DE_MODEL) --input $(GENERAL_EXTRA)/mono.en.gz --out $(SYNTH_WORK)/en-de \
		$(SYNTH_ARGS)
$(SYNTH_WORK)/mined.en.gz: $(SYNTH_WORK)/de-en.en.gz $(SYNTH_WORK)/en-de.en.gz
	nice -n 19 $(PYTHON) tools/mine_pairs.py --en-side $(SYNTH_WORK)/en-de --de-side $(SYNTH_WORK)/de-en \
		--exclude tests/everyday/everyday --out $(SYNTH_WORK)/mined
# $(call ship_int8,CHECKPOINT,F32_DIR,OUT_DIR,EXPORT_ARGS): a train.py checkpoint exported as shipped (int8).
define ship_int8
$(PYTHON) tools/export.py $(1) --out $(2) --dtype f32 $(4)
$(BUILD)/nmt convert --from nmt $(2) -o $(3) --dtype int8 --force
endef
# $(call import_int8,MODEL_DIR,F32_DIR,OUT_PT): a shipped model back into a train.py checkpoint (its weights as
# shipped, int8 rounding included), the start of a later stage.
define import_int8
$(BUILD)/nmt convert --from nmt $(1) -o $(2) --dtype f32 --force
$(PYTHON) tools/import_checkpoint.py $(2) --out $(3)
endef
GENERAL_TRAIN = nice -n 19 $(PYTHON) tools/train.py --corpus general --data $(GENERAL_DATA) --resume \
	--time-budget-min $(GENERAL_BUDGET_MIN) --checkpoint-every-min 10 $(GENERAL_MODEL_ARGS)
# $(call int8_stage,FROM_DIR,RUN_DIR,TRAIN_ARGS,OUT_DIR,EXPORT_ARGS): a stage that starts from a shipped-as-int8
# model (FROM_DIR), trains into RUN_DIR and is exported as shipped into OUT_DIR.
define int8_stage
$(call import_int8,$(1),$(1)-f32,$(2)-init/model.pt)
$(GENERAL_TRAIN) --out $(2) --init-from $(2)-init/model.pt $(3)
$(call ship_int8,$(2)/avg.pt,$(2)-f32,$(4),$(5))
endef
# Stages 1-3, exported as shipped (int8). The export marks them done: delete GENERAL_STAGE3 to run them again
# with other settings.
$(GENERAL_STAGE3)/model.json: | $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target nmt
	$(GENERAL_TRAIN) --out $(GENERAL_WORK) $(GENERAL_TRAIN_ARGS)
	$(GENERAL_TRAIN) --out $(GENERAL_WORK)/finetune --init-from $(GENERAL_WORK)/avg.pt $(GENERAL_FINETUNE_ARGS)
	$(GENERAL_TRAIN) --out $(GENERAL_WORK)/distill --init-from $(GENERAL_DISTILL_INIT) $(GENERAL_DISTILL_ARGS)
	$(call ship_int8,$(GENERAL_WORK)/distill/avg.pt,$(GENERAL_WORK)/distill-f32,$(GENERAL_STAGE3),$(GENERAL_EXPORT_ARGS))
$(GENERAL_WORK)/stage4/model.json: $(GENERAL_STAGE3)/model.json $(SYNTH_WORK)/de-en.en.gz
	cmake --build $(BUILD) -j $(JOBS) --target nmt
	$(GENERAL_TRAIN) --out $(GENERAL_WORK)/backtrans --init-from $(GENERAL_WORK)/distill/avg.pt \
		--synthetic bt=$(SYNTH_WORK)/de-en $(GENERAL_BACKTRANS_ARGS)
	$(call ship_int8,$(GENERAL_WORK)/backtrans/avg.pt,$(GENERAL_WORK)/f32,$(GENERAL_WORK)/stage4,$(GENERAL_EXPORT_ARGS))
model: $(GENERAL_WORK)/stage4/model.json $(SYNTH_WORK)/mined.en.gz
	cmake --build $(BUILD) -j $(JOBS) --target nmt
	$(call int8_stage,$(GENERAL_WORK)/stage4,$(GENERAL_WORK)/long,--device $(GENERAL_DEVICE) $(GENERAL_SYNTH) \
		$(GENERAL_LONG_ARGS),$(GENERAL_WORK)/stage5,$(GENERAL_EXPORT_ARGS))
	$(call int8_stage,$(GENERAL_WORK)/stage5,$(GENERAL_WORK)/tail,$(GENERAL_SYNTH) $(GENERAL_TAIL_ARGS),\
		$(GENERAL_WORK)/stage6,$(GENERAL_EXPORT_ARGS))
	$(call int8_stage,$(GENERAL_WORK)/stage6,$(GENERAL_WORK)/last,$(GENERAL_SYNTH) $(GENERAL_LAST_ARGS),\
		$(GENERAL_OUT),$(GENERAL_EXPORT_ARGS))
	du -sh $(GENERAL_OUT)
	$(PYTHON) tools/eval_general.py --model $(GENERAL_OUT) --nmt $(BUILD)/nmt --data $(GENERAL_DATA) \
		--out $(GENERAL_WORK)/eval

# The German->English model data/general-de-en (its card: data/general-de-en/README.md): the general pairs
# reversed, the teacher's translations reversed (its German as the source) and back-translations of mono.en by
# the English->German model DE_EN_FROM (tools/synth_data.py, resumable chunks cached under DE_EN_WORK/bt-en),
# starting from that model's weights and vocabulary (tools/import_checkpoint.py); then one more epoch from those
# weights (DE_EN_MORE_INIT) with fresh back-translations of mono.en by the English->German default
# (SYNTH_WORK/en-de) at a higher weight; then two epochs from stage 2 that add the mined human pairs
# (SYNTH_WORK/mined); then stage 4, from stage 3's int8 export, many more updates of large batches
# (DE_EN_LONG_ARGS, on GENERAL_DEVICE as stage 5 of `make model`); then stage 5, from stage 4's int8 export, as
# stage 6 of `make model` (DE_EN_TAIL_ARGS); then stages 6 and 7, each from the one before as exported in int8,
# both as stage 7 of `make model` (DE_EN_LAST_ARGS). DE_EN_FROM is stage 3 of `make model`, which runs first where
# it is missing. Resumable as `make model`.
DE_EN_FROM ?= $(GENERAL_STAGE3)
DE_EN_WORK ?= build/train-de-en
DE_EN_OUT ?= data/general-de-en
DE_EN_BT_ARGS ?= --beam 1
DE_EN_TRAIN_ARGS ?= --mix multi30k=0.5,tatoeba=1,news=1,kd=0.5,bt=0.25 --dropout 0.2 --label-smoothing 0.1 --lr 1e-3 \
	--warmup 400 --max-tokens 2500 --epochs 3 --cooldown 1.0 --average 1 --bleu-every 0
DE_EN_MORE_INIT ?= $(DE_EN_WORK)/train/avg.pt
DE_EN_MORE_ARGS ?= --mix multi30k=1,tatoeba=1,news=0.5,kd=0.5,bt=0.6 --dropout 0.2 --label-smoothing 0.1 --lr 5e-4 \
	--warmup 200 --max-tokens 2500 --epochs 1 --cooldown 1.0 --average 1 --bleu-every 0
DE_EN_MINED_ARGS ?= --mix mined=2,tatoeba=1,kd=0.5,bt=0.15,multi30k=0.25,news=0.25 --dropout 0.2 \
	--label-smoothing 0.1 --lr 5e-4 --warmup 200 --max-tokens 2500 --epochs 2 --cooldown 1.0 --average 1 --bleu-every 0
DE_EN_LONG_ARGS ?= $(LONG_STAGE_ARGS) --steps 2069
DE_EN_TAIL_ARGS ?= $(TAIL_STAGE_ARGS) --steps 1409
DE_EN_LAST_ARGS ?= --mix $(LAST_STAGE_MIX),bt=0.3 $(LAST_STAGE_ARGS) --steps 1800
# The direction and synthetic sources of stages 3-7.
DE_EN_SYNTH = --direction de-en --synthetic bt=$(SYNTH_WORK)/en-de --synthetic mined=$(SYNTH_WORK)/mined
DE_EN_EXPORT_ARGS ?= --source-lang de --target-lang en --beam 5 --length-penalty 1.0 --no-repeat-ngram-size 4 \
	--alignment-layer 1
model-de-en: $(DE_EN_FROM)/model.json $(SYNTH_WORK)/mined.en.gz | $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target nmt
	$(call import_int8,$(DE_EN_FROM),$(DE_EN_WORK)/en-de-f32,$(DE_EN_WORK)/init/model.pt)
	$(SYNTH_DATA) --model $(DE_EN_FROM) --input $(GENERAL_EXTRA)/mono.en.gz --out $(DE_EN_WORK)/bt-en $(DE_EN_BT_ARGS)
	$(GENERAL_TRAIN) --direction de-en --out $(DE_EN_WORK)/train --init-from $(DE_EN_WORK)/init/model.pt \
		--synthetic bt=$(DE_EN_WORK)/bt-en $(DE_EN_TRAIN_ARGS)
	$(GENERAL_TRAIN) --direction de-en --out $(DE_EN_WORK)/more --init-from $(DE_EN_MORE_INIT) \
		--synthetic bt=$(SYNTH_WORK)/en-de $(DE_EN_MORE_ARGS)
	$(GENERAL_TRAIN) --out $(DE_EN_WORK)/mined --init-from $(DE_EN_WORK)/more/avg.pt $(DE_EN_SYNTH) \
		$(DE_EN_MINED_ARGS)
	$(call ship_int8,$(DE_EN_WORK)/mined/avg.pt,$(DE_EN_WORK)/f32,$(DE_EN_WORK)/stage3,$(DE_EN_EXPORT_ARGS))
	$(call int8_stage,$(DE_EN_WORK)/stage3,$(DE_EN_WORK)/long,--device $(GENERAL_DEVICE) $(DE_EN_SYNTH) \
		$(DE_EN_LONG_ARGS),$(DE_EN_WORK)/stage4,$(DE_EN_EXPORT_ARGS))
	$(call int8_stage,$(DE_EN_WORK)/stage4,$(DE_EN_WORK)/tail,$(DE_EN_SYNTH) $(DE_EN_TAIL_ARGS),\
		$(DE_EN_WORK)/stage5,$(DE_EN_EXPORT_ARGS))
	$(call int8_stage,$(DE_EN_WORK)/stage5,$(DE_EN_WORK)/last,$(DE_EN_SYNTH) $(DE_EN_LAST_ARGS),\
		$(DE_EN_WORK)/stage6,$(DE_EN_EXPORT_ARGS))
	$(call int8_stage,$(DE_EN_WORK)/stage6,$(DE_EN_WORK)/last-again,$(DE_EN_SYNTH) $(DE_EN_LAST_ARGS),\
		$(DE_EN_OUT),$(DE_EN_EXPORT_ARGS))
	du -sh $(DE_EN_OUT)
	$(PYTHON) tools/eval_general.py --model $(DE_EN_OUT) --nmt $(BUILD)/nmt --data $(GENERAL_DATA) \
		--out $(DE_EN_WORK)/eval

# The German->English recipe on a sample (2,000 lines of each monolingual file, a few hundred updates) into
# build/de-en-smoke/model, starting from the bundled English->German model: checks the pipeline end to end, not
# the quality.
DE_EN_SMOKE_MIX = multi30k=0.02,tatoeba=0.05,news=0.01,kd=0.02,bt=0.2
DE_EN_SMOKE_ARGS = --lr 1e-4 --warmup 20 --epochs 1 --cooldown 1.0 --average 1 --bleu-every 0
# The stages of either smoke run from its large-batch stage on: 20 updates each.
SMOKE_STEPS_ARGS = --lr 1e-4 --warmup 20 --steps 20 --cooldown 1.0 --average 1 --bleu-every 0
model-de-en-smoke:
	$(MAKE) model-de-en DE_EN_FROM=$(GENERAL_OUT) DE_EN_WORK=build/de-en-smoke DE_EN_OUT=build/de-en-smoke/model \
		SYNTH_WORK=build/de-en-smoke/synth SYNTH_DE_EN_MODEL=$(DE_EN_OUT) SYNTH_ARGS="--beam 1 --limit 2000" \
		DE_EN_BT_ARGS="--beam 1 --limit 2000" DE_EN_TRAIN_ARGS="--mix $(DE_EN_SMOKE_MIX) $(DE_EN_SMOKE_ARGS)" \
		DE_EN_MORE_ARGS="--mix $(DE_EN_SMOKE_MIX) $(DE_EN_SMOKE_ARGS)" \
		DE_EN_MINED_ARGS="--mix $(DE_EN_SMOKE_MIX),mined=1 $(DE_EN_SMOKE_ARGS)" \
		DE_EN_LONG_ARGS="--mix $(DE_EN_SMOKE_MIX),mined=1 $(SMOKE_STEPS_ARGS)" \
		DE_EN_TAIL_ARGS="--mix $(DE_EN_SMOKE_MIX),mined=1 $(SMOKE_STEPS_ARGS)" \
		DE_EN_LAST_ARGS="--mix $(DE_EN_SMOKE_MIX),mined=1 $(SMOKE_STEPS_ARGS)"

# The whole general recipe at toy scale (a tiny model, a few hundred updates on a sample of each source) into
# build/general-smoke/model: checks the pipeline end to end, not the quality.
GENERAL_SMOKE_LAST_MIX = kd=0.02,tatoeba=0.05,multi30k=0.02,news=0.02,bt=0.3,mined=1
model-smoke:
	$(MAKE) model GENERAL_WORK=build/general-smoke GENERAL_OUT=build/general-smoke/model \
		GENERAL_MODEL_ARGS="--vocab 8000 --d-model 64 --heads 2 --enc-layers 1 --dec-layers 1 --ffn 256 --threads 1" \
		GENERAL_TRAIN_ARGS="--mix multi30k=0.1,tatoeba=0.2,news=0.1 --lr 2e-3 --warmup 100 --epochs 3 --average 2 \
		--bleu-every 0" \
		GENERAL_FINETUNE_ARGS="--mix multi30k=0.2,tatoeba=0.1,news=0.05 --lr 1e-3 --warmup 20 --epochs 1 \
		--cooldown 1.0 --average 1 --bleu-every 0" \
		GENERAL_DISTILL_ARGS="--mix kd=0.05,multi30k=0.05,tatoeba=0.1,news=0.05 --lr 1e-3 --warmup 20 --epochs 1 \
		--cooldown 1.0 --average 1 --bleu-every 0" \
		SYNTH_WORK=build/general-smoke/synth SYNTH_ARGS="--beam 1 --limit 2000" SYNTH_EN_DE_MODEL=$(GENERAL_OUT) \
		GENERAL_BACKTRANS_ARGS="--mix kd=0.02,tatoeba=0.05,multi30k=0.02,news=0.02,bt=0.3 --lr 1e-3 --warmup 20 \
		--epochs 1 --cooldown 1.0 --average 1 --bleu-every 0" \
		GENERAL_LONG_ARGS="--mix $(GENERAL_SMOKE_LAST_MIX) $(SMOKE_STEPS_ARGS)" \
		GENERAL_TAIL_ARGS="--mix $(GENERAL_SMOKE_LAST_MIX) $(SMOKE_STEPS_ARGS)" \
		GENERAL_LAST_ARGS="--mix $(GENERAL_SMOKE_LAST_MIX) $(SMOKE_STEPS_ARGS)" \
		GENERAL_EXPORT_ARGS="--beam 5 --length-penalty 1.0 --no-repeat-ngram-size 4 --alignment-layer 0"

DATA ?= ../shared/data/multi30k
# The caption model data/multi30k-en-de (about two hours on 2 cores; its card: data/multi30k-en-de/README.md).
model-multi30k:
	$(PYTHON) tools/train.py --data $(DATA) --out build/train --lr 2e-3 --warmup 800 --epochs 25 --cooldown 0.3 --stop-after 22 --time-budget-min 1000 --bleu-every 0 --average 5 --bf16
	$(PYTHON) tools/average_checkpoints.py build/train/epoch20.pt build/train/epoch21.pt build/train/epoch22.pt --out build/train/avg20-22.pt
	$(PYTHON) tools/export.py build/train/avg20-22.pt --out data/multi30k-en-de --dtype f16 --beam 5 --length-penalty 1.5 --alignment-layer 1 \
		--no-repeat-ngram-size 4

# Speed: nmt vs the PyTorch reference, median of 3 runs; prints a table, writes bench/latest/MACHINE.md.
# BENCH_ARGS=--quick for a smoke run; --model DIR for another model (see tools/bench.py --help).
BENCH_ARGS ?=
bench: build
	$(PYTHON) tools/bench.py --nmt $(BUILD)/nmt $(BENCH_ARGS)
	if [ -n "$(BENCH_SERVE)" ]; then $(MAKE) bench-serve; fi

# nmt against CTranslate2 4.8.1 (built by hand under /opt/ctranslate2; skipped otherwise): same weights,
# pieces and length limit, f32 and int8, greedy and beam 4, runs alternating (tools/bench_ct2.py).
CT2_BENCH_ARGS ?=
bench-ct2: build
	$(PYTHON) tools/bench_ct2.py --nmt $(BUILD)/nmt $(CT2_BENCH_ARGS)

# nmt against marian-decoder (built by hand under /opt/marian) on a Marian student: MARIAN_MODEL=DIR, a release
# directory whose decoder.yml or config*.yml names the model, vocabularies, shortlist and gemm-precision.
bench-marian: build
	$(PYTHON) tools/bench_marian.py --nmt $(BUILD)/nmt --model $(MARIAN_MODEL) $(MARIAN_BENCH_ARGS)

# --glossary on test sets built from the dev splits and dict-freedict-eng-deu (make deps-tools): term rate,
# spurious insertions, BLEU and time against unconstrained decoding and placeholders (docs/glossary.md).
bench-glossary: build
	$(PYTHON) tools/bench_glossary.py --nmt $(BUILD)/nmt $(GLOSSARY_BENCH_ARGS)

# Single-sentence latency (beam 4, batch 1, 1 and 2 threads): p50/p99 of nmt and CTranslate2 (tools/bench_latency.py).
LATENCY_BENCH_ARGS ?= --synthetic
bench-latency: build
	$(PYTHON) tools/bench_latency.py --nmt $(BUILD)/nmt $(LATENCY_BENCH_ARGS)

# Throughput as replicas x threads from 1 core to all (tools/bench_scaling.py); SCALING_BENCH_ARGS=--write
# puts the table in bench/latest/scaling-MACHINE.md.
SCALING_BENCH_ARGS ?=
bench-scaling: build
	$(PYTHON) tools/bench_scaling.py --nmt $(BUILD)/nmt $(SCALING_BENCH_ARGS)

# nmt and CTranslate2 beside busy processes (tools/bench_contention.py).
CONTENTION_BENCH_ARGS ?=
bench-contention: build
	$(PYTHON) tools/bench_contention.py --nmt $(BUILD)/nmt $(CONTENTION_BENCH_ARGS)

# Peak RSS of `nmt translate -i page.html` against the page's size, up to 50 MB (docs/formats.md, Limits).
bench-html-memory: build
	$(PYTHON) tools/html_memory.py --nmt $(BUILD)/nmt --model tests/fixtures/paper/model --sizes-mb 0.2,5,20,50

# `nmt serve` under load: N clients on loopback vs `nmt translate` on the same sentences (bench/serve_load.py).
SERVE_BENCH_ARGS ?= --clients 32 --seconds 30
bench-serve: build
	$(PYTHON) bench/serve_load.py --nmt $(BUILD)/nmt $(SERVE_BENCH_ARGS)

format:
	clang-format -i $$(git ls-files '*.h' '*.cc' '*.inl')

clean:
	rm -rf $(BUILD) build-asan build-fuzz $(DEB_BUILD) nmt_*.deb

# libFuzzer targets (clang, ASan + UBSan); FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 600
fuzz:
	cmake -S . -B build-fuzz $(call GENERATOR,build-fuzz) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DNMT_FUZZ=ON -DNMT_TESTS=OFF
	cmake --build build-fuzz -j $(JOBS)
	tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

# Hostile inputs that once hung or took gigabytes, under `ulimit -v` 1.5 GB and `timeout` (tests/stress/run.sh).
stress: build
	tests/stress/run.sh $(BUILD)

fuzz-smoke:
	$(MAKE) fuzz FUZZ_SECONDS=30
