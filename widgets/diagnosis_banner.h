#pragma once
// FindingCard: one finding of the doctor — severity, title, the sentence with its numbers, the
// advised change as key=value — with "Apply…" (a new config with that change) and, on the Run
// page's banner, "Details". applyFinding() is the one Apply path of the Run and Hardware pages.
#include <QFrame>
#include <functional>

#include "core/telemetry/events.h"

class QLabel;
class QPushButton;

namespace stave::studio {
class DoctorAdvice;
class ProjectDocument;
}  // namespace stave::studio

namespace stave::widgets {

class FindingCard : public QFrame {
  Q_OBJECT
 public:
  explicit FindingCard(QWidget* parent = nullptr);
  /// Shows `finding`; `more` is a line after the advice ("" for none), e.g. "2 more findings".
  void setFinding(const telemetry::Finding& finding, const QString& more = QString());
  /// Whether the Details button shows (the Run page's banner).
  void setDetailsVisible(bool visible);

  QLabel* titleLabel() const { return m_title; }
  QLabel* messageLabel() const { return m_message; }
  QLabel* adviceLabel() const { return m_advice; }
  QPushButton* applyButton() const { return m_apply; }
  QPushButton* detailsButton() const { return m_details; }

 signals:
  void applyClicked();
  void detailsClicked();

 private:
  QLabel* m_title = nullptr;
  QLabel* m_message = nullptr;
  QLabel* m_advice = nullptr;
  QPushButton* m_apply = nullptr;
  QPushButton* m_details = nullptr;
};

/// Asks for a name (`askName` gets a suggestion; "" cancels) and adds to `doc` the config that
/// applies finding `index` of `advice`. `message` gets what to tell the user (also on failure
/// and cancel: then ""). Returns whether a config was added.
bool applyFinding(studio::ProjectDocument* doc, const studio::DoctorAdvice* advice, int index,
                  const std::function<QString(const QString&)>& askName, QString* message);

/// The words and colours of the widgets that show findings.
class FindingText : public QObject {
  Q_OBJECT
 public:
  /// The background and border of a card of this severity (the frame called `objectName`).
  static QString styleSheet(telemetry::Severity severity, const QString& objectName);
  /// Tooltip of a finding: rule, rank and the evidence numbers.
  static QString evidence(const telemetry::Finding& finding);
};

}  // namespace stave::widgets
