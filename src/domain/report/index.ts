/** Pure renderers of what people see on GitHub: the job summary, the sticky comment, annotations. */
export * from './annotations.js'
export * from './comment.js'
export * from './escape.js'
export * from './format.js'
export * from './limits.js'
export * from './mermaid.js'
export * from './model.js'
export * from './summary.js'
