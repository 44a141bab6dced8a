#pragma once
// SeriesStore: every chart series of one followed run, kept once, keyed by SeriesId — what the
// Run page draws (losses, epoch losses, metrics, learning rates, samples/s, each GPU's
// utilisation, memory and power, the nodes' CPU and memory). A run's session owns it and fills
// it from the batches its reader decoded (nothing is decoded here) and from what the history
// store holds of a long run (the buckets, and a zoomed range read again at full resolution);
// views only reference series by id and draw them, so a second view of a run shares its points
// instead of reading the run again. QtCore only; used on the GUI thread.
#include <QObject>
#include <QVector>
#include <cstdint>
#include <map>
#include <vector>

#include "core/studio/models/lod_series.h"
#include "core/studio/models/run_event.h"
#include "core/studio/models/run_series.h"

namespace stave::studio {

struct StoredRun;

class SeriesStore : public QObject {
  Q_OBJECT
 public:
  explicit SeriesStore(QObject* parent = nullptr);

  /// The points of `id`, nullptr when the run has none (yet). Valid until reset().
  const LodSeries* find(SeriesId id) const;
  /// Every series held, in SeriesId order.
  std::vector<SeriesId> ids() const;
  /// Changes when `id`'s points are replaced rather than appended to (or the series is made
  /// again after a reset): a view's state computed from them is computed again.
  uint64_t generation(SeriesId id) const;
  /// Points held in all, and their memory in bytes.
  size_t points() const;
  size_t bytes() const;
  /// Unix time of the run's first event: x = 0 of the time series.
  double t0() const { return m_t0; }
  /// The run's nodes, as its samples say.
  int nodes() const { return m_nodes; }
  /// x of the last sample bucket of a run opened from the history store (0: none).
  double bucketsUntil() const { return m_bucketsUntil; }

  /// Takes the points of `events` from index `first` on (rank 0's steps with the ranks'
  /// summed samples/s, epochs, validation, the launcher's samples) as the reader decoded them;
  /// `first` 0 starts over, with `stored`'s series (a run opened from the history store)
  /// moved in first. seriesChanged() once for the batch.
  void apply(const std::vector<RunEvent>& events, size_t first, StoredRun* stored = nullptr);
  /// Appends points (x must not decrease within a series); seriesChanged() at the next flush().
  void append(SeriesId id, double x, double y);
  void append(const std::vector<SeriesPoint>& points);
  /// Replaces the points of `id`.
  void setPoints(SeriesId id, LodSeries&& points);
  /// Draws `points` instead of `id`'s own within [lo, hi] (LodSeries::setDetail).
  void setDetail(SeriesId id, double lo, double hi, LodSeries&& points);
  /// Forgets every series (cleared()).
  void reset();
  /// Emits seriesChanged() for what changed since the last flush.
  void flush();

 signals:
  /// The points of `ids` changed: views drawing them replot.
  void seriesChanged(const QVector<stave::studio::SeriesId>& ids);
  /// Every series was dropped.
  void cleared();

 private:
  struct Entry {
    LodSeries points;
    uint64_t generation = 0;
  };
  Entry& entry(SeriesId id);
  void changed(SeriesId id);
  void takeStored(StoredRun& run);
  void applyOne(const RunEvent& e);
  std::map<SeriesId, Entry> m_series;  ///< map nodes stay put: find() pointers stay valid
  std::vector<SeriesId> m_changed;
  uint64_t m_stamp = 0;
  std::map<int, double> m_rankSps;  ///< each rank's latest samples/s (summed at rank 0's step)
  double m_t0 = 0;
  double m_bucketsUntil = 0;
  int m_nodes = 1;
};

}  // namespace stave::studio
