#pragma once
// "Fetch weights" of a run on a cluster behind SSH: its checkpoints (best.pt, last.pt) are not
// mirrored unasked, so this copies them into the run's folder here when pressed (pressed again
// while copying: stops). The button says how far the copy is; what happened (the files written,
// or an error naming the remote path) is told through message(). Hidden for other runs.
#include <QPushButton>

namespace stave::studio {
class WeightsFetch;
}

namespace stave::widgets {

class FetchWeightsButton : public QPushButton {
  Q_OBJECT
 public:
  explicit FetchWeightsButton(QWidget* parent = nullptr);
  /// The run whose weights it fetches; shown only when `overSsh`.
  void setRun(const QString& runDir, bool overSsh);
  /// Starts the fetch (or stops the one running); false when there is no run.
  bool fetch();
  studio::WeightsFetch* job() const { return m_fetch; }

 signals:
  /// One line for the user: the files fetched, or why not.
  void message(const QString& text);

 private:
  void showProgress();
  studio::WeightsFetch* m_fetch;
  QString m_runDir;
};

}  // namespace stave::widgets
