#pragma once
// The queue of runs waiting for their GPUs (a dock of the main window): Queue adds the Run page's
// config and rank count, Cancel, Up and Down act on the selected entry.
#include <QWidget>
#include <functional>

class QListView;
class QPushButton;
class QToolButton;
class QLabel;

namespace stave::studio {
class RunQueue;
}

namespace stave::widgets {

class QueuePanel : public QWidget {
  Q_OBJECT
 public:
  /// `choice` gives the config and rank count to queue (the Run page's).
  QueuePanel(studio::RunQueue* queue, std::function<std::pair<QString, int>()> choice,
             QWidget* parent = nullptr);
  QListView* view() const { return m_view; }
  /// Queues the current choice; false with the reason shown.
  bool queueChoice();

 private:
  void updateButtons();
  /// The placeholder in the list's place while the queue is empty.
  void updatePlaceholder();
  studio::RunQueue* m_queue;
  std::function<std::pair<QString, int>()> m_choice;
  QListView* m_view = nullptr;
  QPushButton* m_cancel = nullptr;
  QToolButton* m_up = nullptr;
  QToolButton* m_down = nullptr;
  QLabel* m_note = nullptr;
  QLabel* m_empty = nullptr;
};

}  // namespace stave::widgets
