/**
 * A stand-in for Whisper's multilingual tokenizer, with its layout: byte-level BPE, ids 0–255 the
 * 256 bytes in GPT-2's order (220 is the space `Ġ`), ids 256–50256 made-up words (Whisper's are learned
 * merges; random weights make text noise either way), then the special tokens at their
 * real ids: <|endoftext|> 50257, <|startoftranscript|> 50258, the 99 languages from 50259, the tasks,
 * and <|notimestamps|> 50363. Ids from 50364 to 51864 are timestamps, which the tokenizer does not list
 * (as in Whisper's own tokenizer.json).
 */
import { byteAlphabet, printableByte } from '../byte-alphabet.js';
import type { ModelFiles } from './model-files.js';

/** Whisper's languages in token order: <|en|> is 50259, <|su|> 50357. */
export const whisperLanguages = (
  'en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la ' +
  'mi ml cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be ' +
  'tg sd gu am yi lo uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su'
).split(' ');

export const whisperIds = {
  space: 220,
  endOfText: 50_257,
  startOfTranscript: 50_258,
  firstLanguage: 50_259,
  translate: 50_358,
  transcribe: 50_359,
  startOfLm: 50_360,
  startOfPrev: 50_361,
  noCaptions: 50_362,
  noTimestamps: 50_363,
} as const;

/** Byte characters in GPT-2's id order: the printable bytes first, then the others. */
function bytesInIdOrder(): string[] {
  const alphabet = byteAlphabet();
  const bytes = Array.from({ length: 256 }, (_, b) => b);
  return [...bytes.filter(printableByte), ...bytes.filter((b) => !printableByte(b))].map((b) => alphabet[b]!);
}

/** Made-up words (aa, ab, …, zz, aaa, …), every other one with a leading space (`Ġ`): readable noise. */
function madeUpTokens(count: number): string[] {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const words: string[] = [];
  for (let length = 2; words.length < count; length++) {
    for (let n = 0; n < letters.length ** length && words.length < count; n++) {
      let w = '';
      for (let v = n, i = 0; i < length; i++, v = Math.floor(v / letters.length)) w = letters[v % letters.length]! + w;
      words.push((words.length % 2 === 0 ? 'Ġ' : '') + w);
    }
  }
  return words;
}

function vocabulary(): Record<string, number> {
  const bytes = bytesInIdOrder();
  const tokens = [...bytes, ...madeUpTokens(whisperIds.endOfText - bytes.length)];
  return Object.fromEntries(tokens.map((t, id) => [t, id]));
}

function specials(): [number, string][] {
  const ids = whisperIds;
  return [
    [ids.endOfText, '<|endoftext|>'],
    [ids.startOfTranscript, '<|startoftranscript|>'],
    ...whisperLanguages.map((code, i): [number, string] => [ids.firstLanguage + i, `<|${code}|>`]),
    [ids.translate, '<|translate|>'],
    [ids.transcribe, '<|transcribe|>'],
    [ids.startOfLm, '<|startoflm|>'],
    [ids.startOfPrev, '<|startofprev|>'],
    [ids.noCaptions, '<|nocaptions|>'],
    [ids.noTimestamps, '<|notimestamps|>'],
  ];
}

export function whisperTokenizer(): ModelFiles {
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  const special = (id: string) => ({ SpecialToken: { id, type_id: 0 } });
  const prefix = ['<|startoftranscript|>', '<|en|>', '<|transcribe|>', '<|notimestamps|>'];
  const added = specials();
  return {
    'tokenizer.json': {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: added.map(([id, content]) => ({
        id,
        content,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      })),
      normalizer: null,
      pre_tokenizer: byteLevel,
      post_processor: {
        type: 'TemplateProcessing',
        single: [...prefix.map(special), { Sequence: { id: 'A', type_id: 0 } }, special('<|endoftext|>')],
        pair: [
          ...prefix.map(special),
          { Sequence: { id: 'A', type_id: 0 } },
          { Sequence: { id: 'B', type_id: 1 } },
          { SpecialToken: { id: '<|endoftext|>', type_id: 1 } },
        ],
        special_tokens: Object.fromEntries(
          [...prefix, '<|endoftext|>'].map((t) => [
            t,
            { id: t, ids: [added.find(([, c]) => c === t)![0]], tokens: [t] },
          ]),
        ),
      },
      decoder: { ...byteLevel, add_prefix_space: true },
      model: {
        type: 'BPE',
        dropout: null,
        unk_token: null,
        continuing_subword_prefix: '',
        end_of_word_suffix: '',
        fuse_unk: false,
        byte_fallback: false,
        vocab: vocabulary(),
        merges: [],
      },
    },
    'tokenizer_config.json': {
      tokenizer_class: 'WhisperTokenizer',
      processor_class: 'WhisperProcessor',
      add_bos_token: false,
      add_prefix_space: false,
      bos_token: '<|endoftext|>',
      eos_token: '<|endoftext|>',
      unk_token: '<|endoftext|>',
      pad_token: null,
      clean_up_tokenization_spaces: true,
      errors: 'replace',
      model_max_length: 1024,
      return_attention_mask: false,
    },
  };
}
