/// The name a misspelt one most likely meant, for errors that suggest ("did you mean …?").
package enum Suggestions {
  /// The name in `candidates` that `name` most likely misspells: at most two edits away (one for
  /// names of four letters or fewer), the closest, the first in order on a tie.
  package static func nearest(to name: String, among candidates: some Collection<String>) -> String? {
    let limit = name.count <= 4 ? 1 : 2
    var best: (name: String, distance: Int)?
    for candidate in candidates.sorted() {
      let distance = editDistance(name.lowercased(), candidate.lowercased())
      if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
    }
    return best?.name
  }

  /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
  /// neighbours ("plya" → "play" is one).
  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
        }
      }
    }
    return table[a.count][b.count]
  }
}
