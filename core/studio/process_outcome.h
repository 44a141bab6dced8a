#pragma once
// ProcessOutcome: how a child process of the studio ended, or that it has not — a training run
// (RunController, the queue through it), a prediction (PredictJob), a model export
// (ModelExportJob). One set of words for all of them: a job the user cancelled is Stopped, as
// a run the user stopped; a job that did its work is Completed, as a run that trained every
// epoch.

namespace stave::studio {

enum class ProcessOutcome {
  None,           ///< nothing started (or nothing followed)
  Starting,       ///< started, not heard from yet
  Running,        ///< running (a job: also reading its results)
  Completed,      ///< did all it was asked
  Stopped,        ///< stopped or cancelled by the user (a run: with a checkpoint)
  EarlyStopped,   ///< a run that ended by its patience
  Failed,         ///< ended with an error it reported
  FailedToStart,  ///< the program could not be started
  Crashed,        ///< ended without saying how (a signal, a lost process)
};

/// Whether `o` is an end (not None, Starting or Running).
constexpr bool hasEnded(ProcessOutcome o) {
  return o != ProcessOutcome::None && o != ProcessOutcome::Starting && o != ProcessOutcome::Running;
}

}  // namespace stave::studio
