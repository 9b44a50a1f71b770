internal import CFoleySDL2
import FoleyScene
import Foundation

/// Draws a node tree with SDL's renderer: each visible `SpriteNode` as a rotated, scaled,
/// translucent quad in its colour (`SDL_RenderGeometry`), children after parents and siblings in
/// `zPosition` order. Scene coordinates have y up; SDL's have y down.
@MainActor
struct SceneRenderer {
  let renderer: OpaquePointer
  let sceneHeight: Double

  func draw(_ scene: Scene) {
    draw(scene, transform: Transform(), alpha: 1)
  }

  private func draw(_ node: Node, transform parent: Transform, alpha parentAlpha: Double) {
    guard !node.isHidden else { return }
    let transform = parent.appending(node)
    let alpha = parentAlpha * node.alpha
    if let sprite = node as? SpriteNode, alpha > 0 {
      drawQuad(of: sprite, transform: transform, alpha: alpha)
    }
    let ordered = node.children.enumerated().sorted {
      ($0.element.zPosition, $0.offset) < ($1.element.zPosition, $1.offset)
    }
    for (_, child) in ordered {
      draw(child, transform: transform, alpha: alpha)
    }
  }

  private func drawQuad(of sprite: SpriteNode, transform: Transform, alpha: Double) {
    let left = -sprite.anchorPoint.x * sprite.size.width
    let bottom = -sprite.anchorPoint.y * sprite.size.height
    let corners = [
      (left, bottom), (left + sprite.size.width, bottom),
      (left + sprite.size.width, bottom + sprite.size.height), (left, bottom + sprite.size.height),
    ].map { transform.apply(x: $0.0, y: $0.1) }
    let color = SDL_Color(
      r: Canvas.byte(sprite.color.red), g: Canvas.byte(sprite.color.green),
      b: Canvas.byte(sprite.color.blue), a: Canvas.byte(sprite.color.alpha * alpha))
    let vertices = corners.map { corner in
      SDL_Vertex(
        position: SDL_FPoint(x: Float(corner.x), y: Float(sceneHeight - corner.y)),
        color: color, tex_coord: SDL_FPoint(x: 0, y: 0))
    }
    let indices: [Int32] = [0, 1, 2, 0, 2, 3]
    _ = SDL_RenderGeometry(renderer, nil, vertices, Int32(vertices.count), indices, Int32(indices.count))
  }

  /// An affine transform from a node's coordinates to the scene's.
  private struct Transform {
    var a = 1.0, b = 0.0, c = 0.0, d = 1.0, tx = 0.0, ty = 0.0

    @MainActor func appending(_ node: Node) -> Transform {
      let cosine = cos(node.zRotation)
      let sine = sin(node.zRotation)
      // local = translate(position) · rotate · scale
      let la = cosine * node.xScale
      let lb = sine * node.xScale
      let lc = -sine * node.yScale
      let ld = cosine * node.yScale
      return Transform(
        a: a * la + c * lb, b: b * la + d * lb,
        c: a * lc + c * ld, d: b * lc + d * ld,
        tx: a * node.position.x + c * node.position.y + tx,
        ty: b * node.position.x + d * node.position.y + ty)
    }

    func apply(x: Double, y: Double) -> (x: Double, y: Double) {
      (a * x + c * y + tx, b * x + d * y + ty)
    }
  }
}
