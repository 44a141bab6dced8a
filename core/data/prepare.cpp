#include "core/data/prepare.h"

namespace stave::data {

Result<PrepareReport> prepareDataset(const std::string& dataYaml, int imgsz, CacheMode cache,
                                     int threads, int64_t ramBudgetBytes) {
  auto spec = loadDataYaml(dataYaml);
  if (!spec) return spec.errors();
  ScanOptions so;
  so.threads = threads;
  PrepareReport rep;
  std::vector<Error> errors;
  for (const char* split : {"train", "val"}) {
    auto index = scanSplit(spec.value(), split, so);
    if (!index) {
      errors.insert(errors.end(), index.errors().begin(), index.errors().end());
      continue;
    }
    rep.problems += static_cast<int64_t>(index->problems.size());
    const bool train = std::string(split) == "train";
    (train ? rep.trainImages : rep.valImages) = static_cast<int64_t>(index->images.size());
    if (index->images.empty()) {
      errors.push_back({spec->yamlPath, 0, split,
                        "the split has no usable images (see stave-train check-dataset)"});
      continue;
    }
    if (cache == CacheMode::Disk) {
      const std::string path = defaultDiskCachePath(index.value(), imgsz);
      const Status st = buildDiskCache(index.value(), imgsz, "", threads);
      if (!st)
        errors.insert(errors.end(), st.errors().begin(), st.errors().end());
      else
        (train ? rep.trainDiskCache : rep.valDiskCache) = path;
    } else if (cache == CacheMode::Ram) {
      const Status st = checkRamCache(index.value(), imgsz, ramBudgetBytes);
      if (!st) errors.insert(errors.end(), st.errors().begin(), st.errors().end());
    }
  }
  if (!errors.empty()) return errors;
  return rep;
}

}  // namespace stave::data
