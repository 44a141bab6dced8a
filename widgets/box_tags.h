#pragma once
// Where the name tags of boxes go, so that two boxes that nearly coincide (a label and its
// duplicate, two detections of one object) show two readable tags instead of one drawn over the
// other. Geometry only (QtCore/QtGui types, no widget): the label editor, the dataset and
// validation views and Predict's saving thread all place their tags with it.
#include <QRectF>
#include <QSizeF>
#include <QVector>

namespace stave::widgets {

/// The tag of each box, in the boxes' order: each tag of `sizes[i]` sits at the top left of
/// `boxes[i]` — above it where there is room within `bounds`, else just inside its top edge —
/// and a tag that would cover an earlier one moves, in order of preference, inside the top, below
/// the box, or onto the next free row above or below. Tags stay within `bounds` where they fit.
/// Earlier boxes keep their places: give the one that matters most (the selected box) first.
QVector<QRectF> placeBoxTags(const QVector<QRectF>& boxes, const QVector<QSizeF>& sizes,
                             const QRectF& bounds);

}  // namespace stave::widgets
