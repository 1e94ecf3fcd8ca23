/**
 * Why an import was refused: the file and the line or record at fault, in words a person can act
 * on. Nothing of the import has been written when one is thrown.
 */
export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportError';
  }
}
