public import FoleyScene

/// A 5×7 pixel font drawn with filled rectangles: HUD text with no font files and no extra
/// library, identical on every machine (so screenshots are reproducible). Upper-case ASCII,
/// digits and common punctuation; lower case is drawn as upper case, anything else as a box.
///
/// ```swift
/// canvas.draw(scene) { canvas in
///   canvas.drawText("VOICES 3/12", x: 10, y: 10, scale: 2, color: .white)
/// }
/// ```
enum BitmapFont {
  static let glyphWidth: Int32 = 5
  static let glyphHeight: Int32 = 7
  /// Advance per character, in font pixels (one column of spacing).
  static let advance: Int32 = 6

  /// Rows top to bottom; bit 4 is the leftmost column.
  static let glyphs: [Character: [UInt8]] = [
    "A": [0b01110, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001],
    "B": [0b11110, 0b10001, 0b10001, 0b11110, 0b10001, 0b10001, 0b11110],
    "C": [0b01110, 0b10001, 0b10000, 0b10000, 0b10000, 0b10001, 0b01110],
    "D": [0b11110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b11110],
    "E": [0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b11111],
    "F": [0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b10000],
    "G": [0b01110, 0b10001, 0b10000, 0b10111, 0b10001, 0b10001, 0b01111],
    "H": [0b10001, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001],
    "I": [0b01110, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],
    "J": [0b00111, 0b00010, 0b00010, 0b00010, 0b00010, 0b10010, 0b01100],
    "K": [0b10001, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010, 0b10001],
    "L": [0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b11111],
    "M": [0b10001, 0b11011, 0b10101, 0b10101, 0b10001, 0b10001, 0b10001],
    "N": [0b10001, 0b10001, 0b11001, 0b10101, 0b10011, 0b10001, 0b10001],
    "O": [0b01110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110],
    "P": [0b11110, 0b10001, 0b10001, 0b11110, 0b10000, 0b10000, 0b10000],
    "Q": [0b01110, 0b10001, 0b10001, 0b10001, 0b10101, 0b10010, 0b01101],
    "R": [0b11110, 0b10001, 0b10001, 0b11110, 0b10100, 0b10010, 0b10001],
    "S": [0b01111, 0b10000, 0b10000, 0b01110, 0b00001, 0b00001, 0b11110],
    "T": [0b11111, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100],
    "U": [0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110],
    "V": [0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01010, 0b00100],
    "W": [0b10001, 0b10001, 0b10001, 0b10101, 0b10101, 0b10101, 0b01010],
    "X": [0b10001, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0b10001],
    "Y": [0b10001, 0b10001, 0b01010, 0b00100, 0b00100, 0b00100, 0b00100],
    "Z": [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b11111],
    "0": [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110],
    "1": [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110],
    "2": [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111],
    "3": [0b11110, 0b00001, 0b00001, 0b01110, 0b00001, 0b00001, 0b11110],
    "4": [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010],
    "5": [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110],
    "6": [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110],
    "7": [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000],
    "8": [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110],
    "9": [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100],
    ":": [0b00000, 0b00100, 0b00100, 0b00000, 0b00100, 0b00100, 0b00000],
    ".": [0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00110, 0b00110],
    ",": [0b00000, 0b00000, 0b00000, 0b00000, 0b00110, 0b00100, 0b01000],
    "-": [0b00000, 0b00000, 0b00000, 0b11111, 0b00000, 0b00000, 0b00000],
    "+": [0b00000, 0b00100, 0b00100, 0b11111, 0b00100, 0b00100, 0b00000],
    "/": [0b00001, 0b00010, 0b00010, 0b00100, 0b01000, 0b01000, 0b10000],
    "(": [0b00010, 0b00100, 0b01000, 0b01000, 0b01000, 0b00100, 0b00010],
    ")": [0b01000, 0b00100, 0b00010, 0b00010, 0b00010, 0b00100, 0b01000],
    "%": [0b11001, 0b11010, 0b00010, 0b00100, 0b01000, 0b01011, 0b10011],
    "=": [0b00000, 0b00000, 0b11111, 0b00000, 0b11111, 0b00000, 0b00000],
    ">": [0b01000, 0b00100, 0b00010, 0b00001, 0b00010, 0b00100, 0b01000],
    "<": [0b00010, 0b00100, 0b01000, 0b10000, 0b01000, 0b00100, 0b00010],
    "[": [0b01110, 0b01000, 0b01000, 0b01000, 0b01000, 0b01000, 0b01110],
    "]": [0b01110, 0b00010, 0b00010, 0b00010, 0b00010, 0b00010, 0b01110],
    "#": [0b00000, 0b01010, 0b11111, 0b01010, 0b11111, 0b01010, 0b00000],
    "!": [0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00000, 0b00100],
    "?": [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b00000, 0b00100],
    "'": [0b00100, 0b00100, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000],
    "_": [0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b00000, 0b11111],
    "*": [0b00000, 0b10101, 0b01110, 0b11111, 0b01110, 0b10101, 0b00000],
    // Arrows for captions' directions, and the multiplication sign of their counts.
    "→": [0b00000, 0b00100, 0b00010, 0b11111, 0b00010, 0b00100, 0b00000],
    "←": [0b00000, 0b00100, 0b01000, 0b11111, 0b01000, 0b00100, 0b00000],
    "↑": [0b00100, 0b01110, 0b10101, 0b00100, 0b00100, 0b00100, 0b00100],
    "↓": [0b00100, 0b00100, 0b00100, 0b00100, 0b10101, 0b01110, 0b00100],
    "↗": [0b00000, 0b01111, 0b00011, 0b00101, 0b01001, 0b10000, 0b00000],
    "↖": [0b00000, 0b11110, 0b11000, 0b10100, 0b10010, 0b00001, 0b00000],
    "↘": [0b00000, 0b10000, 0b01001, 0b00101, 0b00011, 0b01111, 0b00000],
    "↙": [0b00000, 0b00001, 0b10010, 0b10100, 0b11000, 0b11110, 0b00000],
    "×": [0b00000, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0b00000],
  ]

  static let unknown: [UInt8] = [0b11111, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b11111]
}

extension Canvas {
  /// Draws `text` with its top-left corner at (`x`, `y`) in window pixels (y down), each font pixel
  /// `scale` pixels square. Returns the width drawn.
  @discardableResult
  public func drawText(_ text: String, x: Int32, y: Int32, scale: Int32 = 2, color: Color) -> Int32 {
    var cursor = x
    for character in text.uppercased() {
      if character != " " {
        let rows = BitmapFont.glyphs[character] ?? BitmapFont.unknown
        for (row, bits) in rows.enumerated() {
          // One rectangle per run of lit pixels keeps the draw calls few.
          var column: Int32 = 0
          while column < BitmapFont.glyphWidth {
            guard bits & (0b10000 >> column) != 0 else {
              column += 1
              continue
            }
            var end = column
            while end < BitmapFont.glyphWidth && bits & (0b10000 >> end) != 0 { end += 1 }
            fillRect(
              x: cursor + column * scale, y: y + Int32(row) * scale, width: (end - column) * scale,
              height: scale,
              color: color)
            column = end
          }
        }
      }
      cursor += BitmapFont.advance * scale
    }
    return cursor - x
  }

  /// The width `text` takes at `scale`.
  public static func textWidth(_ text: String, scale: Int32 = 2) -> Int32 {
    Int32(text.count) * BitmapFont.advance * scale
  }
}
