import Dispatch
public import FoleyAudio
import FoleyCore
import FoleyScene

/// Captions on screen: a panel of the engine's captions (`engine.captions`, a `CaptionCenter`), each line
/// an arrow towards its sound, its words and its count, newest at the bottom, coloured by kind
/// (critical cues amber), fading out when they end. Legible at the default scale on an 800×600
/// window (14-pixel capitals on a dark panel); placed at the bottom or the top, centred, or at the
/// foot of a column of the window (a side panel beside the game's field).
///
/// ```swift
/// let captions = CaptionBox(engine: engine)
/// canvas.draw(scene) { canvas in captions.draw(on: canvas) }
/// ```
///
/// A game that draws its own keeps the events: ``lines(at:)`` is what this box would show.
@MainActor
public final class CaptionBox {
  public enum Placement: Sendable, Hashable {
    /// Centred at the window's bottom, ``margin`` pixels up.
    case bottom
    /// Centred at the window's top, ``margin`` pixels down.
    case top
    /// At the bottom of the column from `x`, `width` pixels wide, ``margin`` pixels up; a line too
    /// long for it is cut with an ellipsis.
    case area(x: Int32, width: Int32)
  }

  /// One caption as shown.
  public struct Line: Sendable, Hashable {
    public var event: CaptionEvent
    /// How opaque it is, 1 while shown, falling to 0 over ``CaptionBox/fadeTime`` once it ended.
    public var opacity: Double
    /// The text drawn: the arrow towards the sound (none when it is not placed), the words and
    /// the count.
    public var text: String {
      (showsDirection ? event.direction.map { "\($0.arrow) " } ?? "" : "") + event.label
    }
    /// Whether ``text`` starts with the arrow (the box's ``CaptionBox/showsDirections``).
    public var showsDirection = true
  }

  /// Whether each caption starts with an arrow towards its sound (on by default). A game played
  /// by ear alone turns the arrows off and keeps the words:
  ///
  /// ```swift
  /// let box = CaptionBox(engine: engine)
  /// box.showsDirections = false   // by ear alone: the words, no arrows
  /// ```
  public var showsDirections = true

  public var placement = Placement.bottom
  /// Pixels from the window's edge to the panel.
  public var margin: Int32 = 12
  /// Each font pixel's size: 2 draws 14-pixel capitals.
  public var scale: Int32 = 2
  /// The most lines shown; the oldest go first.
  public var maximumLines = 4
  /// Seconds an ended caption takes to fade.
  public var fadeTime = 0.6

  private var shown: [(event: CaptionEvent, endedAt: Double?)] = []
  private var observation: Observation?

  /// A box showing `engine`'s captions.
  public init(engine: AudioEngine) {
    observation = engine.captions.observe { [weak self] event in self?.show(event, at: Self.now) }
  }

  /// A box the game feeds itself, with ``show(_:at:)``.
  public init() {}

  isolated deinit {
    observation?.cancel()
  }

  /// Takes `event` in: a new caption, a change, or an end (the line then fades from `time`).
  public func show(_ event: CaptionEvent, at time: Double) {
    if let index = shown.firstIndex(where: { $0.event.id == event.id }) {
      shown[index] = (event, event.phase == .ended ? time : nil)
    } else if event.phase != .ended {
      shown.append((event, nil))
    }
    if shown.count > maximumLines { shown.removeFirst(shown.count - maximumLines) }
  }

  /// The lines shown at `time`, oldest first.
  public func lines(at time: Double) -> [Line] {
    shown.compactMap { entry in
      guard let ended = entry.endedAt else {
        return Line(event: entry.event, opacity: 1, showsDirection: showsDirections)
      }
      let opacity = fadeTime > 0 ? 1 - (time - ended) / fadeTime : 0
      return opacity > 0
        ? Line(event: entry.event, opacity: min(1, opacity), showsDirection: showsDirections) : nil
    }
  }

  /// Draws the box on `canvas` as it is at `time` (seconds on the clock ``show(_:at:)`` was given;
  /// the engine's captions use the monotonic clock, ``now``), and forgets faded lines.
  public func draw(on canvas: Canvas, at time: Double = CaptionBox.now) {
    let lines = lines(at: time)
    shown.removeAll { entry in entry.endedAt.map { time - $0 >= fadeTime } ?? false }
    guard !lines.isEmpty else { return }
    let lineHeight = 9 * scale
    let padding = 3 * scale
    var room = canvas.width - 2 * margin
    if case .area(_, let columnWidth) = placement { room = max(0, columnWidth) }
    let texts = lines.map { Self.fitted($0.text, width: room - 2 * padding, scale: scale) }
    let widest = texts.map { Canvas.textWidth($0, scale: scale) }.max() ?? 0
    let width = min(room, widest + 2 * padding)
    let height = Int32(lines.count) * lineHeight + 2 * padding - 2 * scale
    let x: Int32
    let y: Int32
    switch placement {
    case .bottom: (x, y) = ((canvas.width - width) / 2, canvas.height - margin - height)
    case .top: (x, y) = ((canvas.width - width) / 2, margin)
    case .area(let left, _): (x, y) = (left, canvas.height - margin - height)
    }
    let panelOpacity = lines.map(\.opacity).max() ?? 1
    canvas.fillRect(
      x: x, y: y, width: width, height: height,
      color: Color(red: 0, green: 0, blue: 0, alpha: 0.7 * panelOpacity))
    for (index, line) in lines.enumerated() {
      var color = Self.color(for: line.event.category)
      color.alpha = line.opacity
      canvas.drawText(
        texts[index], x: x + padding, y: y + padding + Int32(index) * lineHeight, scale: scale, color: color)
    }
  }

  /// `text`, cut with an ellipsis to fit `width` pixels at `scale`.
  static func fitted(_ text: String, width: Int32, scale: Int32) -> String {
    guard Canvas.textWidth(text, scale: scale) > width else { return text }
    var cut = text
    while !cut.isEmpty, Canvas.textWidth(cut + "...", scale: scale) > width { cut.removeLast() }
    return cut + "..."
  }

  /// Seconds on the monotonic clock.
  public static var now: Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

  static func color(for category: Caption.Category) -> Color {
    switch category {
    case .critical: Color(red: 1, green: 0.75, blue: 0.2, alpha: 1)
    case .speech: Color(red: 1, green: 1, blue: 1, alpha: 1)
    case .music: Color(red: 0.7, green: 0.85, blue: 1, alpha: 1)
    case .effect: Color(red: 0.85, green: 0.85, blue: 0.85, alpha: 1)
    }
  }
}
