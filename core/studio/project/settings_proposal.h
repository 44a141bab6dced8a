#pragma once
// Settings the new-project wizard proposes for this machine and this dataset, as an experienced
// Ultralytics user would set them: the schema's defaults (imgsz 640, nbs 64, 100 epochs) suit a
// GPU and a large dataset; on a CPU they give a run that takes hours and, cut short, learns
// nothing (mAP 0). Each proposal says why.

#include <QList>
#include <QString>
#include <QStringList>

namespace stave::studio {

/// What the proposals depend on in the machine.
struct MachineShape {
  int gpus = 0;           ///< NVIDIA GPUs NVML reports (0 without a driver)
  double gpuMemGiB = 0;   ///< the smallest GPU's memory
  int cpuCores = 1;       ///< logical cores
};
/// Reads the machine (NVML loaded at run time; a few file reads): off the GUI thread.
MachineShape probeMachine();

/// What the proposals depend on in the dataset.
struct DatasetShape {
  qint64 trainImages = 0;  ///< images of the train split
  double imageSide = 0;    ///< mean of the images' longer side in pixels (0 = unknown)
};

struct SettingProposal {
  QString key;    ///< schema key
  QString value;  ///< as the command line takes it
  QString why;    ///< one line, translated
};

/// The proposals, in schema order of importance.
QList<SettingProposal> proposeSettings(const MachineShape& machine, const DatasetShape& dataset);
/// As key=value overrides.
QStringList proposalOverrides(const QList<SettingProposal>& proposals);

}  // namespace stave::studio
