"""The core: tasks, their store, the scheduler and its lanes — pure Python, never Qt,
Playwright or httpx (tests/unit/test_layering.py imports it with them blocked).

Each package is a room a question leads to; imports point down this list, never up
(tests/unit/test_layering.py holds every package to the arrows below):

============  ===========================================================  ======================
package       what lives there                                             may import (core)
============  ===========================================================  ======================
``model``     the vocabulary: states, errors, records, events, the clock,  nothing of ours
              the Provider protocol, event codes, job control
``files``     the data folder on disk: where things live, private modes,   model
              safe file names, atomic writes, cross-process locks,
              diagnostics retention
``rules``     pure rules (``now`` passed in): pacing, retry and backoff,    model
              the quality gate's checks, batch schedules, the ETA
``config``    the one config schema (``config.toml``), editing it in place  model, files, rules
``store``     the task store: tables, migrations, the engine, database     model, files, rules
              threads, the rooms (queue, outcomes, reaper, operator,
              batches, reads), account and pacing rows, sessions, the
              follower
``disk``      the store as a file and its hazards: integrity, busy,        model, files, rules,
              backups, a full disk, the reserve, last writes, start of day  config, store
``batches``   batch files in: decoding CSV/TSV/XLSX/JSONL, building tasks  model, rules, store
``exports``   results out: CSV, JSONL, XLSX, Markdown, DOCX, folders;     model, files, rules,
              the export child process                                      config, store
``notices``   notices (a batch ended, an account needs you, the disk)      model, files, rules,
              derived from the store's events                               config, store
``metrics``   the lanes measured: figures over a window from the store,  model, files, rules,
              alarms and their episodes, the Prometheus collector           config, store, notices
``accounts``  accounts at work: the web pacer, the API gate               model, files, rules,
              (concurrency, rpm, tpm)                                       config, store, disk
``lanes``     the scheduler and its two lanes: routing, claims, attempts,  everything above
              heartbeats, live account changes, shutdown
============  ===========================================================  ======================
"""
