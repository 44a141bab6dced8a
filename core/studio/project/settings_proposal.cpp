#include "core/studio/project/settings_proposal.h"

#include <QCoreApplication>
#include <QThread>
#include <algorithm>
#include <cmath>

#include "core/telemetry/gpu_inventory.h"

namespace stave::studio {
namespace {
// The context lupdate gives a free tr() in this namespace: the translations are found under it
// (a context of its own here left every proposal's reason in English).
QString tr(const char* text) {
  return QCoreApplication::translate("stave::studio", text);
}
}  // namespace

MachineShape probeMachine() {
  MachineShape m;
  m.cpuCores = std::max(1, QThread::idealThreadCount());
  telemetry::GpuInventoryOptions o;
  const QString env = qEnvironmentVariable("STAVE_NVML_LIBRARY");
  if (!env.isEmpty()) o.library = env.toStdString();
  const auto inv = telemetry::readGpuInventory(o);
  if (inv.available) {
    m.gpus = static_cast<int>(inv.devices.size());
    for (const auto& d : inv.devices) {
      const double gib = d.memoryTotal > 0 ? double(d.memoryTotal) / double(1ll << 30) : 0;
      if (gib > 0 && (m.gpuMemGiB == 0 || gib < m.gpuMemGiB)) m.gpuMemGiB = gib;
    }
  }
  return m;
}

QList<SettingProposal> proposeSettings(const MachineShape& machine, const DatasetShape& data) {
  QList<SettingProposal> out;
  const bool gpu = machine.gpus > 0;
  const qint64 images = std::max<qint64>(1, data.trainImages);
  // Image size: 640 (Ultralytics' default) on a GPU, 320 on a CPU; never above the images'
  // own size (upscaling small images costs time and adds nothing), a multiple of 32.
  int imgsz = gpu ? 640 : 320;
  if (data.imageSide > 0)
    imgsz = std::min(imgsz, std::max(64, int(std::ceil(data.imageSide / 32.0)) * 32));
  out.append({QStringLiteral("imgsz"), QString::number(imgsz),
              gpu ? tr("Ultralytics' default for a GPU, not above the images' own size")
                  : tr("a CPU trains about 4x faster at 320 than at 640; not above the images' "
                       "own size")});
  // Model: the nano network on a CPU or a small dataset, the small one on a GPU with more data.
  const QString model = gpu && images >= 5000 ? QStringLiteral("yolov8s") : QStringLiteral("yolov8n");
  out.append({QStringLiteral("model"), model,
              gpu && images >= 5000 ? tr("enough images for the small network on a GPU")
                                    : tr("the nano network: fast to train, enough for this "
                                         "dataset or machine")});
  // Batch per rank: by GPU memory at 640 (scaled with the image area), 16 on a CPU.
  int batch = 16;
  if (gpu) {
    batch = machine.gpuMemGiB >= 40 ? 64 : machine.gpuMemGiB >= 20 ? 32 : 16;
    const double area = double(imgsz) * imgsz / (640.0 * 640.0);
    batch = std::clamp(int(batch / std::max(area, 0.25)), 8, 128);
  }
  batch = int(std::min<qint64>(batch, images));
  out.append({QStringLiteral("batch"), QString::number(batch),
              gpu ? tr("fits the smallest GPU's memory (%1 GiB) at this image size")
                        .arg(machine.gpuMemGiB, 0, 'f', 0)
                  : tr("a CPU batch: larger ones are not faster per image")});
  // Nominal batch: 64 on a GPU; on a CPU one optimiser step per batch, so a short run still
  // makes enough steps to learn.
  const int nbs = gpu ? 64 : batch;
  out.append({QStringLiteral("nbs"), QString::number(nbs),
              gpu ? tr("Ultralytics' nominal batch")
                  : tr("one optimiser step per batch: a short CPU run makes enough steps")});
  // Epochs: Ultralytics' 100 on a GPU (50 for a large dataset); on a CPU about 5,000 images
  // seen in all, at least 10 epochs.
  int epochs = 100;
  if (gpu)
    epochs = images > 50000 ? 50 : 100;
  else
    epochs = int(std::clamp<qint64>(5000 / images, 10, 100));
  out.append({QStringLiteral("epochs"), QString::number(epochs),
              gpu ? tr("Ultralytics' default; fewer for a large dataset")
                  : tr("about 5,000 images seen in all: minutes to an hour on a CPU")});
  if (!gpu)
    out.append({QStringLiteral("warmup_epochs"), QString::number(std::min(3, epochs / 10)),
                tr("a tenth of a short run, at most Ultralytics' 3")});
  // Loader workers: the cores, shared between the ranks, one left for the trainer.
  const int ranks = std::max(1, machine.gpus);
  const int workers = std::clamp((machine.cpuCores - 1) / ranks, 0, 8);
  out.append({QStringLiteral("workers"), QString::number(workers),
              tr("%1 logical cores shared by %2 rank(s), one left for training")
                  .arg(machine.cpuCores)
                  .arg(ranks)});
  return out;
}

QStringList proposalOverrides(const QList<SettingProposal>& proposals) {
  QStringList out;
  for (const auto& p : proposals) out << p.key + QLatin1Char('=') + p.value;
  return out;
}

}  // namespace stave::studio
