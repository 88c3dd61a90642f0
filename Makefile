# Fresh-machine entry points. Each target sets up what it needs (a virtual environment in .venv).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
EXAMPLE := src/workload_map/examples/ai-cluster.yaml

.PHONY: example test lint unit live lab bench fuzz clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(BIN)/.package

# The package alone (what `make example` needs): the test extras take minutes more on a loaded machine.
$(BIN)/.package: pyproject.toml
	test -f $(BIN)/.installed -a $(BIN)/.installed -nt pyproject.toml || { \
	  $(PYTHON) -m venv $(VENV) && \
	  $(BIN)/python -m pip install --quiet --upgrade pip && \
	  $(BIN)/python -m pip install --quiet -e . ; }
	touch $@

# The main job on the built-in example cluster: every workload, then one described in full.
example: $(BIN)/.package
	$(BIN)/wmap get -A --from-file $(EXAMPLE)
	@echo
	$(BIN)/wmap describe lws/vllm-llama-405b -n ml-serving --from-file $(EXAMPLE)

lint: $(BIN)/.installed
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy --strict src/workload_map

# Unit and integration tests without a cluster, in parallel.
unit: $(BIN)/.installed
	$(BIN)/python -m pytest -q --durations=25 -n 2 -m "not live and not lab" tests

# Tests against a genuine kube-apiserver built from the Kubernetes Go module (cached between runs), in
# parallel: each worker starts its own session cluster, and a module's tests stay on one worker (--dist
# loadfile), with its module-scoped fixtures.
live: $(BIN)/.installed
	$(BIN)/python -m pytest -q --durations=25 -n 2 --dist loadfile -m live tests

# The cluster lab: the genuine control plane with kube-controller-manager, kube-scheduler, KWOK nodes and real
# operators (binaries from tools/lab/build.sh, cached between runs), workloads driven step by step.
lab: $(BIN)/.installed
	$(BIN)/python -m pytest -q --durations=25 -m lab tests/lab

# live and lab side by side: both wait mostly on their API servers and controllers rather than on a core
# (measured: live 8.5 min and lab 7.8 min together, ~16 min one after the other); each suite's output is
# printed whole when it ends.
test: lint unit
	$(MAKE) --no-print-directory -j2 --output-sync=target live lab

# The property and hostile-input tests for FUZZ_SECONDS (default 600) with random seeds; reports crashes.
fuzz: $(BIN)/.installed
	$(BIN)/python tests/fuzz/run.py

bench: $(BIN)/.installed
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
