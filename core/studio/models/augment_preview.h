#pragma once
// "Show augmentation": one training batch rendered by the real loader (data::Loader::buildBatch)
// with a run config's augmentation, as RGB images with their target boxes. QtCore only; the
// Dataset page runs it on a worker thread and draws it.

#include <QByteArray>
#include <QRectF>
#include <QString>
#include <QVector>

#include "core/config/run_config.h"
#include "core/data/dataset.h"

namespace stave::studio {

/// One rendered training batch.
struct AugmentPreview {
  struct Box {
    int cls = 0;
    QRectF rect;  ///< normalised to the image: left, top, width, height
  };
  struct Image {
    QByteArray rgb;  ///< 8-bit RGB, width * 3 bytes per row
    int width = 0, height = 0;
    QString path;  ///< the batch's source image for this slot (mosaic adds three others)
    QVector<Box> boxes;
  };
  QVector<Image> images;
  int epoch = 0;       ///< the epoch the batch was drawn from
  qint64 batch = 0;    ///< its index in that epoch
  qint64 targets = 0;  ///< boxes in the batch
  QString error;       ///< why no batch could be built ("" = it was)
};

/// Builds draw number `draw` (0, 1, 2, ...: each a different epoch and batch) of the training
/// loader that `cfg` configures (imgsz, augmentation, seed — the trainer's own mapping,
/// data::loaderOptionsFromConfig), over `train`, with at most `maxImages` images and no cache.
/// Never throws: failures are in `error`.
AugmentPreview buildAugmentPreview(const data::SplitIndex& train, const config::RunConfig& cfg,
                                   int draw, int maxImages = 16);

}  // namespace stave::studio
