#pragma once
// The one mapping from a run config to the loader's options, used by the trainer and by the
// studio's augmentation preview, so both render batches the same way.

#include "core/config/run_config.h"
#include "core/data/loader.h"

namespace stave::data {

/// The augmentation hyperparameters of `cfg` (hsv_*, degrees, translate, scale, shear,
/// perspective, flipud, fliplr, mosaic, mixup).
AugmentOptions augmentOptionsFromConfig(const config::RunConfig& cfg);

/// Loader options from `cfg` for the training (`train`: augmented, shuffled) or validation
/// loader: imgsz, batch, workers, prefetch, persistent_workers, channels_last, rect (validation
/// only), seed, cache and the augmentation. Rank, world size and the allocator are the
/// caller's; so is capping `workers` to the cores.
LoaderOptions loaderOptionsFromConfig(const config::RunConfig& cfg, bool train);

}  // namespace stave::data
