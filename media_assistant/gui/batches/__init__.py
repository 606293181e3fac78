"""Batches: the New batch dialog (pasted prompts or a file, options), the batches list with
progress and ETA, and the notice after a submit. May import ``gui.common``, ``gui.bridge`` and
``gui.tasks`` (a batch's rows are tasks)."""
