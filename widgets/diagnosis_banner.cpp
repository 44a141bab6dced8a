#include "widgets/diagnosis_banner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "core/studio/engine_text.h"
#include "core/studio/hardware/hardware_advice.h"
#include "core/studio/project/project_document.h"

namespace stave::widgets {

namespace tel = telemetry;

FindingCard::FindingCard(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("findingCard"));
  setFrameShape(QFrame::StyledPanel);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(10, 6, 10, 6);
  auto* text = new QVBoxLayout;
  text->setSpacing(2);
  m_title = new QLabel(this);
  m_title->setObjectName(QStringLiteral("findingTitle"));
  m_message = new QLabel(this);
  m_message->setObjectName(QStringLiteral("findingMessage"));
  m_message->setWordWrap(true);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_advice = new QLabel(this);
  m_advice->setObjectName(QStringLiteral("findingAdvice"));
  m_advice->setWordWrap(true);
  m_advice->setTextInteractionFlags(Qt::TextSelectableByMouse);
  text->addWidget(m_title);
  text->addWidget(m_message);
  text->addWidget(m_advice);
  layout->addLayout(text, 1);
  auto* buttons = new QVBoxLayout;
  m_apply = new QPushButton(tr("Apply…"), this);
  m_apply->setObjectName(QStringLiteral("findingApply"));
  m_apply->setToolTip(tr("Make a new config of the project with this change"));
  m_details = new QPushButton(tr("Details"), this);
  m_details->setObjectName(QStringLiteral("findingDetails"));
  m_details->setToolTip(tr("Every finding, with the node's GPUs and topology (Hardware page)"));
  m_details->setVisible(false);
  buttons->addWidget(m_apply);
  buttons->addWidget(m_details);
  buttons->addStretch(1);
  layout->addLayout(buttons);
  connect(m_apply, &QPushButton::clicked, this, &FindingCard::applyClicked);
  connect(m_details, &QPushButton::clicked, this, &FindingCard::detailsClicked);
}

void FindingCard::setFinding(const tel::Finding& f, const QString& more) {
  const QString severity = studio::DoctorAdvice::severityName(f.severity);
  const QString title = f.title.empty() ? QString::fromStdString(f.rule) : studio::engineText(f.titleText, f.title);
  m_title->setText(tr("<b>%1</b> (%2)").arg(title.toHtmlEscaped(), severity.toHtmlEscaped()));
  m_message->setText(studio::engineText(f.text, f.message));
  const QString advice = QString::fromStdString(tel::adviceText(f.advice));
  QString line = advice.isEmpty() ? tr("No config change advised.")
                                  : tr("Advice: <code>%1</code>").arg(advice.toHtmlEscaped());
  if (!more.isEmpty()) line += QStringLiteral(" · ") + more.toHtmlEscaped();
  m_advice->setText(line);
  m_apply->setEnabled(!f.advice.empty());
  setToolTip(FindingText::evidence(f));
  setStyleSheet(FindingText::styleSheet(f.severity, objectName()));
}

void FindingCard::setDetailsVisible(bool visible) {
  m_details->setVisible(visible);
}

QString FindingText::styleSheet(tel::Severity severity, const QString& objectName) {
  // Only the frame itself: its labels and buttons keep the palette's colours.
  const char* bg = "#e8f1fb";
  const char* border = "#1f77b4";
  if (severity == tel::Severity::Warning) {
    bg = "#fff4e0";
    border = "#e08a00";
  } else if (severity == tel::Severity::Critical) {
    bg = "#fde7e9";
    border = "#b00020";
  }
  return QStringLiteral("QFrame#%3 { background: %1; border: 1px solid %2; "
                        "border-left: 5px solid %2; border-radius: 3px; } "
                        "QFrame#%3 QLabel { background: transparent; color: #202020; }")
      .arg(QLatin1String(bg), QLatin1String(border), objectName);
}

QString FindingText::evidence(const tel::Finding& f) {
  QStringList lines;
  lines << tr("Rule %1").arg(QString::fromStdString(f.rule));
  lines << (f.rank >= 0 ? tr("Rank %1").arg(f.rank) : tr("Every rank"));
  for (const auto& [key, value] : f.evidence)
    lines << QStringLiteral("%1 = %2").arg(QString::fromStdString(key)).arg(value, 0, 'g', 4);
  return lines.join(QLatin1Char('\n'));
}

bool applyFinding(studio::ProjectDocument* doc, const studio::DoctorAdvice* advice, int index,
                  const std::function<QString(const QString&)>& askName, QString* message) {
  if (message) message->clear();
  if (!advice || index < 0 || static_cast<size_t>(index) >= advice->findings().size())
    return false;
  QString error;
  if (!doc || !doc->isOpen()) {
    if (message) *message = FindingText::tr("Open the run's project first.");
    return false;
  }
  const QString name = askName ? askName(advice->suggestName(doc, index)) : QString();
  if (name.trimmed().isEmpty()) return false;  // cancelled
  if (!advice->apply(doc, index, name, &error)) {
    if (message) *message = FindingText::tr("Cannot apply the advice: %1").arg(error);
    return false;
  }
  const auto& f = advice->findings()[static_cast<size_t>(index)];
  if (message)
    *message = FindingText::tr("New config %1 with %2 (save the project to keep it)")
                   .arg(name.trimmed(), QString::fromStdString(tel::adviceText(f.advice)));
  return true;
}

}  // namespace stave::widgets
