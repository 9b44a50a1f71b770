import Foundation

/// What a sound is, in words, for players who cannot hear it: "Chime rings", "Ball whistles".
///
/// Give a sound a caption in its settings (or a sound-map event its `"caption"`), and every play
/// of it that is heard posts a ``CaptionEvent`` with where it comes from and how loud it is
/// (see ``CaptionCenter``):
///
/// ```swift
/// var settings = SoundSettings()
/// settings.caption = Caption("Chime rings")
/// let chime = try Sound(contentsOf: chimeURL, engine: engine, settings: settings)
/// ```
public struct Caption: Sendable, Hashable, Codable {
  /// What kind of sound a caption names: a game may show each kind differently, or hide some.
  public enum Category: String, Sendable, Hashable, Codable, CaseIterable {
    /// A sound effect: footsteps, a door, a chime.
    case effect
    /// Words: dialogue, a narrator.
    case speech
    /// Music starting or changing.
    case music
    /// A cue the player must not miss (a threat, a timer): captioned even when the player has
    /// muted its bus, or the whole game.
    case critical
  }

  /// The words shown: short, present tense, naming the source ("Door creaks").
  public var text: String
  public var category: Category

  public init(_ text: String, category: Category = .effect) {
    self.text = text
    self.category = category
  }
}

/// Where a captioned sound comes from, seen from the scene's listener.
public struct CaptionDirection: Sendable, Hashable {
  /// The angle from the listener to the source, in degrees: 0 is right, 90 above, 180 left,
  /// -90 below (the scene's y grows upwards).
  public var degrees: Double
  /// How far to the side the source is, -1 (left) … 1 (right): the cosine of the angle.
  public var side: Double { cos(degrees * .pi / 180) }
  /// How far above (1) or below (-1) the listener the source is: the sine of the angle.
  public var vertical: Double { sin(degrees * .pi / 180) }

  public init(degrees: Double) {
    let wrapped = degrees.truncatingRemainder(dividingBy: 360)
    self.degrees = wrapped > 180 ? wrapped - 360 : wrapped <= -180 ? wrapped + 360 : wrapped
  }

  /// The direction of a source `dx` points right of and `dy` above the listener (nil when it is
  /// where the listener is).
  public init?(dx: Double, dy: Double) {
    guard dx.isFinite, dy.isFinite, dx != 0 || dy != 0 else { return nil }
    self.init(degrees: atan2(dy, dx) * 180 / .pi)
  }

  /// One of eight arrows pointing at the source: → ↗ ↑ ↖ ← ↙ ↓ ↘.
  public var arrow: String {
    let arrows = ["→", "↗", "↑", "↖", "←", "↙", "↓", "↘"]
    let sector = Int(((degrees + 360 + 22.5).truncatingRemainder(dividingBy: 360)) / 45)
    return arrows[min(max(sector, 0), 7)]
  }

  /// "left", "above right" and so on: the direction in words, for a screen reader or a log.
  public var words: String {
    switch arrow {
    case "→": "right"
    case "↗": "above right"
    case "↑": "above"
    case "↖": "above left"
    case "←": "left"
    case "↙": "below left"
    case "↓": "below"
    default: "below right"
    }
  }
}

/// A caption being shown, begun, changed or ended: what a game draws, from ``CaptionCenter``.
///
/// ```swift
/// engine.captions.observe { event in
///   switch event.phase {
///   case .began, .changed: captionBox.show(event.id, "\(event.label) \(event.direction?.arrow ?? "")")
///   case .ended: captionBox.hide(event.id)
///   }
/// }
/// ```
public struct CaptionEvent: Sendable, Hashable {
  public enum Phase: String, Sendable, Hashable {
    /// First heard: show it.
    case began
    /// Heard again (its count grew), moved, or grew louder or quieter: update it.
    case changed
    /// Its sounds ended, and none came again within ``CaptionCenter/holdTime``: take it down.
    case ended
  }

  /// The same for every event of one shown caption, unique for the engine's lifetime.
  public let id: Int
  public var phase: Phase
  public var text: String
  public var category: Caption.Category
  /// How many plays this caption stands for: repeats of the same caption while it is shown
  /// merge into one ("Ball whistles ×3").
  public var count: Int
  /// Where its loudest sound comes from; nil for a sound that is not placed in the scene (then
  /// ``side`` is its pan).
  public var direction: CaptionDirection?
  /// Left (-1) … right (1): the direction's side, or the pan of a sound not placed in the scene.
  public var side: Double
  /// How far its loudest sound is from the listener, in scene points (nil when not placed).
  public var distance: Double?
  /// How loud its loudest sound is as heard, in dB relative to full scale: its volumes, its
  /// distance, its bus and the master together (-infinity while muted).
  public var loudness: Double
  /// How long its newest sound lasts in seconds from its start; nil when it loops for ever.
  public var duration: Double?
  /// The audio clock's time, in seconds, when it was last heard starting.
  public var time: Double

  public init(
    id: Int, phase: Phase, text: String, category: Caption.Category, count: Int = 1,
    direction: CaptionDirection? = nil, side: Double = 0, distance: Double? = nil, loudness: Double = 0,
    duration: Double? = nil, time: Double = 0
  ) {
    self.id = id
    self.phase = phase
    self.text = text
    self.category = category
    self.count = count
    self.direction = direction
    self.side = side
    self.distance = distance
    self.loudness = loudness
    self.duration = duration
    self.time = time
  }

  /// The text with its count when it stands for more than one play: "Ball whistles ×3".
  public var label: String { count > 1 ? "\(text) ×\(count)" : text }
}
