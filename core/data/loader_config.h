#pragma once
// The one mapping from a run config to the loader's options, used by the trainer and by the
// studio's augmentation preview, so both render batches the same way.

#include <vector>

#include "core/config/binding.h"
#include "core/config/run_config.h"
#include "core/data/loader.h"

namespace stave::data {

/// The augmentation keys, each bound to its AugmentOptions member.
const std::vector<config::FieldBinding<AugmentOptions>>& augmentBindings();
/// The loader keys copied as they are (imgsz, batch, workers, prefetch, persistent_workers,
/// seed); channels_last, rect and cache are converted by loaderOptionsFromConfig().
const std::vector<config::FieldBinding<LoaderOptions>>& loaderBindings();

/// The augmentation hyperparameters of `cfg` (hsv_*, degrees, translate, scale, shear,
/// perspective, flipud, fliplr, mosaic, mixup).
AugmentOptions augmentOptionsFromConfig(const config::RunConfig& cfg);

/// Loader options from `cfg` for the training (`train`: augmented, shuffled) or validation
/// loader: the bound keys, channels_last, rect (validation only), cache and the augmentation. Rank, world size and the allocator are the
/// caller's; so is capping `workers` to the cores.
LoaderOptions loaderOptionsFromConfig(const config::RunConfig& cfg, bool train);

}  // namespace stave::data
