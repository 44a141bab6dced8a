#include "widgets/fetch_weights_button.h"

#include <QDir>

#include "core/studio/run/weights_fetch.h"

namespace stave::widgets {

FetchWeightsButton::FetchWeightsButton(QWidget* parent)
    : QPushButton(tr("Fetch weights"), parent), m_fetch(new studio::WeightsFetch(this)) {
  setObjectName(QStringLiteral("runFetchWeights"));
  setToolTip(
      tr("Copy this run's checkpoints (best.pt, last.pt) from the cluster into its folder here; "
         "they are not copied unasked"));
  setVisible(false);
  connect(this, &QPushButton::clicked, this, [this] { fetch(); });
  connect(m_fetch, &studio::WeightsFetch::progress, this, &FetchWeightsButton::showProgress);
  connect(
      m_fetch, &studio::WeightsFetch::finished, this,
      [this](const QStringList& fetched, const QString& error) {
        setText(tr("Fetch weights"));
        setToolTip(tr(
            "Copy this run's checkpoints (best.pt, last.pt) from the cluster into its folder here; "
            "they are not copied unasked"));
        QStringList names;
        for (const QString& f : fetched) names << QDir::toNativeSeparators(f);
        if (!error.isEmpty())
          emit message(error);
        else
          emit message(tr("Fetched %1").arg(names.join(QStringLiteral(", "))));
      });
}

void FetchWeightsButton::setRun(const QString& runDir, bool overSsh) {
  // A fetch in flight goes on for its own run; the button then follows the run shown.
  m_runDir = runDir;
  setVisible(overSsh && !runDir.isEmpty());
  if (!m_fetch->busy()) setText(tr("Fetch weights"));
}

bool FetchWeightsButton::fetch() {
  if (m_fetch->busy()) {
    m_fetch->cancel();
    return true;
  }
  if (m_runDir.isEmpty() || !m_fetch->startWeights(m_runDir)) return false;
  setText(tr("Stop fetching"));
  showProgress();
  return true;
}

void FetchWeightsButton::showProgress() {
  const qint64 total = m_fetch->bytesTotal();
  if (total > 0)
    setText(tr("Stop fetching (%1%)").arg(static_cast<int>(100.0 * m_fetch->bytesDone() / total)));
  setToolTip(m_fetch->progressText());
}

}  // namespace stave::widgets
