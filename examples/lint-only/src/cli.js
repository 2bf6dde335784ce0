// Smoke entry: prints the slug of its arguments (or of a sample title).
import { slug } from './slug.js'
import { truncate } from './truncate.js'

console.log(truncate(slug(process.argv.slice(2).join(' ') || 'Crème Brûlée: A Recipe'), 40))
