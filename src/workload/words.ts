/**
 * The vocabulary of synthetic prompts: common lowercase English words, each of which is a single
 * token — both with and without a leading space — in the GPT-4 (cl100k), GPT-4o (o200k),
 * Llama 3 and Qwen 3 tokenizers (checked by test/workload/words.test.ts). BPE pre-tokenizers split
 * text before each space, so a text of N such words separated by single spaces is exactly N tokens
 * in those tokenizers: that is the tokenizer-free estimate (docs/workloads.md).
 */
export const WORDS: readonly string[] = `
the of and to in is was for on are with as be at by this have from or had not but what all were
when we there can an your which their said if do will each about how up out them then she many
some so these would other into has more her two like him see time could no make than first been
its who now people my made over did down only way find use may water long little very after words
called just where most know get through back much before go good new write our used me man too any
day same right look think also around another came come work three word must because does part
even place well such here take why things help put years different away again off went old number
great tell men say small every found still between name should home big give air line set own
under read last never us left end along while might next sound below something thought both few
those always show large often house world going want school important until form food keep
children land side without boy once animals life sometimes four head above kind almost live page
got earth need far hand high year mother light parts country father let night following picture
being study second eyes soon times story boys since white days ever paper hard near sentence
better best during today others however sure means try young sun ways thing whole hear example
heard change answer room sea against top turned learn point city play five using usually money
seen car given family later open run green book hold river order table fire south problem half
north east west voice ship true war road free game group rock field plan market power ground stone
music color class data model system state level price value report street cloud server forest
window letter summer winter spring office health energy travel doctor friend moment reason result
simple single strong teacher center circle common company course design early figure final follow
future general heavy history human language length matter middle modern nature object person plant
public quick ready record science short silver speed square start stay step student thank train
tree weather wheel wood yellow yes zero quiet queen planet rabbit bridge castle engine finger
flower glass horse mirror orange rocket shadow soap wagon wizard
`
  .split(/\s+/)
  .filter((w, i, all) => w.length > 0 && all.indexOf(w) === i);
