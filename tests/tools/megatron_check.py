#!/usr/bin/env python3
"""Megatron-LM's functional-test checker on pairs of runs, timed, for
tests/bench_train.sh: its own code (tests/functional_tests/python_test_utils,
imported from PYTHONPATH with TensorBoard and pydantic 2), nothing of ours.

usage: megatron_check.py PAIRS_FILE
Each line of PAIRS_FILE: MODE<TAB>ACTUAL<TAB>GOLDEN<TAB>MODEL_CONFIG[<TAB>TRAIN_ITERS]
MODE is approximate or deterministic; ACTUAL and GOLDEN are golden-values
JSON files, or TensorBoard directories read with read_tb_logs_as_list
(index 0, step 1, TRAIN_ITERS) as its CI extracts them. Prints one line per
pair (seconds, verdict) and the total: "megatron: N pairs, S s".
"""
import logging
import os
import sys
import time

logging.disable(logging.CRITICAL)
from tests.functional_tests.python_test_utils import common  # noqa: E402
from tests.functional_tests.python_test_utils import test_pretraining_regular_pipeline as trp  # noqa: E402


def load(path, train_iters):
    if os.path.isdir(path):
        return common.read_tb_logs_as_list(path, index=0, train_iters=train_iters, start_idx=1, step_size=1)
    return common.read_golden_values_from_json(path)


def main():
    total = 0.0
    n = 0
    for line in open(sys.argv[1]):
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 4:
            continue
        mode, actual, golden, config = parts[:4]
        iters = int(parts[4]) if len(parts) > 4 else 100
        t0 = time.perf_counter()
        try:
            gold, act = load(golden, iters), load(actual, iters)
            trp.test_regular_pipeline(compare_approximate_results=mode == "approximate", golden_values=gold,
                                      actual_values=act, model_config_path=config)
            verdict = "PASSED"
        except BaseException as e:  # the checker fails by raising
            verdict = "FAILED" if isinstance(e, (AssertionError, common.MissingTensorboardLogsError)) else "ERROR"
        dt = time.perf_counter() - t0
        total += dt
        n += 1
        print(f"{dt:.6f} {verdict}")
    print(f"megatron: {n} pairs, {total:.3f} s")


if __name__ == "__main__":
    main()
