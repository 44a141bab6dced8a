// History's comparison of two runs' label files (see history_label_diff.h).
#include "widgets/history_label_diff.h"

#include <QLabel>
#include <QListWidget>
#include <QVBoxLayout>

#include <filesystem>

#include "core/data/label_history.h"
#include "core/store/run_dataset.h"
#include "core/studio/background_job.h"
#include "core/studio/models/history_model.h"

namespace fs = std::filesystem;

namespace stave::widgets {

HistoryLabelDiff::HistoryLabelDiff(QWidget* parent)
    : QWidget(parent), m_job(new studio::BackgroundJob(this)) {
  auto* layout = new QVBoxLayout(this);
  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("historyLabelSummary"));
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_summary);
  m_files = new QListWidget(this);
  m_files->setObjectName(QStringLiteral("historyLabelFiles"));
  m_files->setToolTip(
      tr("Label files, relative to the dataset's folder; `stave-train labels log "
         "DATASET --file FILE --diff` shows their edits"));
  layout->addWidget(m_files, 1);
}

bool HistoryLabelDiff::busy() const {
  return m_job->busy();
}

void HistoryLabelDiff::clear(const QString& text) {
  m_job->stop();
  m_shown.clear();
  m_summary->setText(text);
  m_files->clear();
}

void HistoryLabelDiff::compare(const store::RunRecord& a, const store::RunRecord& b) {
  const QString key = QStringLiteral("%1/%2/%3/%4/%5/%6")
                          .arg(a.id)
                          .arg(QString::fromStdString(a.datasetHash))
                          .arg(a.started)
                          .arg(b.id)
                          .arg(QString::fromStdString(b.datasetHash))
                          .arg(b.started);
  if (key == m_shown) return;
  m_shown = key;
  m_summary->setText(tr("Reading the datasets' edit log…"));
  m_files->clear();
  const QString nameA = studio::HistoryModel::displayName(a);
  const QString nameB = studio::HistoryModel::displayName(b);
  m_job->run<data::LabelFilesDiff>(
      [a, b] {
        return data::labelFilesDiffBetweenRuns(store::runDatasetOf(a), store::runDatasetOf(b));
      },
      [this, nameA, nameB](data::LabelFilesDiff d) {
        using B = data::LabelFilesDiff::Basis;
        using W = data::LabelFilesDiff::Why;
        const int n = int(d.files.size());
        QString text;
        switch (d.basis) {
          case B::SameContent:
            text =
                tr("No label file differs between these runs' datasets: their content is the "
                   "same.");
            break;
          case B::LogPositions:
          case B::EditTimes:
            text = d.outsideLog
                       ? tr("No label file changed in the edit log between these runs, but their "
                            "datasets differ (images or label files changed outside Stave).")
                   : n == 1 ? tr("1 label file differs between these runs' datasets (%1 → %2).")
                                  .arg(nameA, nameB)
                            : tr("%1 label files differ between these runs' datasets (%2 → %3).")
                                  .arg(n)
                                  .arg(nameA, nameB);
            if (d.basis == B::EditTimes)
              text += QLatin1Char(' ') +
                      tr("From the edits made between the two runs' starts: a run did not "
                         "record where the edit log stood.");
            break;
          case B::Unknown:
            switch (d.why) {
              case W::OtherDatasets:
                text =
                    tr("These runs trained on different datasets: which label files differ "
                       "cannot be told from an edit log.");
                break;
              case W::NoDataset:
                text = tr("Cannot tell which label files differ: %1")
                           .arg(QString::fromStdString(d.error));
                break;
              case W::BadLog:
                text =
                    tr("Cannot tell which label files differ: the edit log holds fewer edits "
                       "than a run recorded (it was replaced or cut).");
                break;
              case W::NoTimes:
              case W::None:
                text =
                    tr("Cannot tell which label files differ: the runs recorded neither where "
                       "the edit log stood nor when they started.");
                break;
            }
            break;
        }
        m_summary->setText(text);
        m_files->clear();
        for (const auto& f : d.files) m_files->addItem(QString::fromStdString(f));
        emit compared(d.basis == B::Unknown ? -1 : n);
      },
      [this](QString error) {
        m_shown.clear();
        m_summary->setText(tr("Cannot tell which label files differ: %1").arg(error));
        emit compared(-1);
      });
}

}  // namespace stave::widgets
