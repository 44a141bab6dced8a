#pragma once
// Answers the next modal dialog of type T that a GUI test opens (QInputDialog, QMessageBox,
// QFileDialog run with exec()): `answer` is called with it as soon as it is shown. When none
// shows within the timeout, the answer is not called (the test's own checks then fail).

#include <QApplication>
#include <QTimer>
#include <QWidget>
#include <functional>
#include <memory>

namespace stave::testing {

template <typename T>
void whenModal(std::function<void(T*)> answer, int timeoutMs = 10000) {
  auto* timer = new QTimer;
  auto waited = std::make_shared<int>(0);
  QObject::connect(timer, &QTimer::timeout, [timer, waited, answer = std::move(answer), timeoutMs] {
    T* modal = qobject_cast<T*>(QApplication::activeModalWidget());
    if (modal && !modal->isVisible()) modal = nullptr;
    *waited += timer->interval();
    if (!modal && *waited < timeoutMs) return;
    timer->stop();
    timer->deleteLater();
    if (modal) answer(modal);
  });
  timer->start(20);
}

}  // namespace stave::testing
